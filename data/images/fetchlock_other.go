//go:build !js && !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package images

import "context"

// lockDir does nothing where folders cannot be locked (see the flock
// version): fetches into one folder at once may then disturb each other.
func lockDir(context.Context, string) (unlock func(), err error) {
	return func() {}, nil
}
