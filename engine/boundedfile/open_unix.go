//go:build unix

package boundedfile

import (
	"os"
	"syscall"
)

// openFlags open a file for reading without waiting: O_NONBLOCK makes the
// open of a FIFO return at once instead of waiting for a writer, and
// O_NOCTTY keeps a terminal from becoming the process's controlling one.
// Neither changes how a regular file is read.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// openNonBlocking opens name for reading with openFlags.
func openNonBlocking(name string) (*os.File, error) {
	return os.OpenFile(name, openFlags, 0)
}
