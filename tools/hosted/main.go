// Command hosted prints the data sets the static site carries
// (images.Hosted), one a line: the name, then its published files, for
// build.sh's copy_data.
package main

import (
	"fmt"
	"strings"

	"github.com/deeplda/deeplda/data/images"
)

func main() {
	for _, name := range images.Hosted() {
		s, _ := images.Lookup(name)
		fmt.Println(name, strings.Join(s.Files(), " "))
	}
}
