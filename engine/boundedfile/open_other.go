//go:build !unix

package boundedfile

import "os"

// openFlags open a file for reading; the type of the opened file is
// checked before anything is read from it.
const openFlags = os.O_RDONLY

// openNonBlocking opens name for reading.
func openNonBlocking(name string) (*os.File, error) { return os.Open(name) }
