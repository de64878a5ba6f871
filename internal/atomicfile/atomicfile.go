// Package atomicfile writes files atomically and durably: a reader, or a
// machine that loses power, sees the old file or the new one whole, never
// a mix, and a crash leaves at most a temporary file beside it whose name
// IsTemp recognises.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// tempMark separates a temporary file's target name from its random
// suffix: a temporary file of path DIR/NAME is DIR/.NAME.deeplda-tmp-HEX,
// HEX 16 lowercase hexadecimal digits.
const tempMark = ".deeplda-tmp-"

// hexDigits is the length of a temporary name's random suffix.
const hexDigits = 16

// WriteFile writes data to path atomically (see Write).
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write calls write with a new temporary file beside path (named as
// IsTemp recognises), flushes it to the disk, renames it over path and
// flushes the folder, so that path holds either its previous content or
// the whole new one, even after a crash or a power loss. The file gets
// mode 0644 less the umask, as os.WriteFile would give it. On an error the
// temporary file is removed and path is untouched.
func Write(path string, write func(io.Writer) error) error {
	tmp, err := create(path)
	if err != nil {
		return err
	}
	err = write(tmp)
	if err == nil {
		err = syncFile(tmp)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return syncDir(filepath.Dir(path))
}

// IsTemp reports whether name, a file name without its folder, is that of
// a temporary file of Write: .NAME.deeplda-tmp-HEX.
func IsTemp(name string) bool {
	i := strings.LastIndex(name, tempMark)
	if i < 2 || name[0] != '.' || len(name)-i-len(tempMark) != hexDigits {
		return false
	}
	for _, c := range name[i+len(tempMark):] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// create creates a new temporary file beside path with mode 0644 less the
// umask (os.CreateTemp would make it 0600).
func create(path string) (*os.File, error) {
	prefix := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+tempMark)
	for range 100 {
		f, err := os.OpenFile(fmt.Sprintf("%s%0*x", prefix, hexDigits, rand.Uint64()), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("cannot create a temporary file beside %s", path)
}

// syncFile flushes a file or a folder to the disk; the tests replace it
// to see what is flushed when.
var syncFile = (*os.File).Sync

// syncDir flushes the folder dir, and with it a rename there, to the disk.
// Windows cannot open a folder to flush it.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = syncFile(d)
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
