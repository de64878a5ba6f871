package main

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"github.com/deeplda/deeplda/experiment"
)

// machineMemory returns this machine's memory, which a run's sizes are
// checked against before anything is allocated (a clear refusal instead
// of the Go runtime's out-of-memory crash): MemTotal of /proc/meminfo on
// Linux, unknown (no bound) where that cannot be read.
func machineMemory() experiment.Memory {
	mem := experiment.Memory{Of: "this machine's memory"}
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return mem
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// MemTotal:       24576000 kB
		if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			if kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64); err == nil {
				mem.Bytes = kb << 10
			}
			break
		}
	}
	return mem
}
