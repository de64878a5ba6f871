// Command modelindex lays out the trained models of a folder (models/ of
// the repository; see models/README.md) for the static site, for build.sh's
// site target:
//
//	go run ./tools/modelindex SRC DST
//
// copies every SRC/<name>/ (checkpoint.safetensors, report.json,
// COMMAND.txt) to DST/<name>/ and writes DST/index.json, the list of
// experiment.ModelInfo the page offers ([] when SRC has none or does not
// exist).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/deeplda/deeplda/experiment"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: modelindex SRC DST")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "modelindex:", err)
		os.Exit(1)
	}
}

// run copies the models of src to dst and writes the index.
func run(src, dst string) error {
	infos, err := experiment.ReadModels(src)
	if err != nil {
		return err
	}
	for _, info := range infos {
		for _, f := range []string{experiment.CheckpointFile, experiment.ModelReportFile, experiment.ModelCommandFile} {
			if err := copyFile(filepath.Join(src, info.Name, f), filepath.Join(dst, info.Name, f)); err != nil {
				return err
			}
		}
		fmt.Printf("model %s: %s, %s head, %s, %d epochs, test accuracy %.2f%%, ECE %.2f%%\n",
			info.Name, info.Data, info.Head, info.Loss, info.Epochs, 100*info.TestAccuracy, 100*info.TestECE)
	}
	b, err := json.MarshalIndent(infos, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dst, experiment.ModelsIndex), append(b, '\n'), 0o644)
}

// copyFile copies the file src to dst, making dst's folder.
func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o644)
}
