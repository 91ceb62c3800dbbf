// Package boundedfile reads files that a user names (scripts, modules,
// file.read's filename) without letting the file decide how much memory
// the read takes or whether it ever returns.
//
// A device (/dev/zero never ends), a FIFO (its open and its reads wait for
// a writer), a socket or a directory is refused by its type: the path is
// stat'ed before it is opened, so that such a file is never opened, and
// the opened file is stat'ed again, since the path may have been replaced
// in between. The open does not block (O_NONBLOCK on unix), and the read
// takes at most limit+1 bytes, so that a file that grows after the stat
// costs no more memory than the limit.
package boundedfile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Read returns the content of the regular file name, refusing, without
// blocking, anything else and any file over limit bytes. limitName names
// the limit in the error ("max_size", "the limit of a script").
func Read(name string, limit int64, limitName string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if err := Check(fi, limit, limitName); err != nil {
		return nil, err
	}
	f, err := openNonBlocking(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadOpened(f, limit, limitName)
}

// ReadIn is Read of the path rel inside root (os.Root refuses paths and
// symbolic links that lead outside it).
func ReadIn(root *os.Root, rel string, limit int64, limitName string) ([]byte, error) {
	fi, err := root.Stat(rel)
	if err != nil {
		return nil, err
	}
	if err := Check(fi, limit, limitName); err != nil {
		return nil, err
	}
	f, err := root.OpenFile(rel, openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadOpened(f, limit, limitName)
}

// ReadOpened checks the type and size of the opened file f and reads it
// to its end, failing once it has read more than limit bytes.
func ReadOpened(f *os.File, limit int64, limitName string) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := Check(fi, limit, limitName); err != nil {
		return nil, err
	}
	return ReadAll(f, limit, limitName)
}

// ReadAll reads r to its end, failing once it has read more than limit
// bytes.
func ReadAll(r io.Reader, limit int64, limitName string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("file grew over %s (%d bytes) while being read", limitName, limit)
	}
	return data, nil
}

// Check refuses a file that is not regular or is over limit bytes.
func Check(fi fs.FileInfo, limit int64, limitName string) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s)", TypeName(fi.Mode()))
	}
	if fi.Size() > limit {
		return fmt.Errorf("file is %d bytes, over %s (%d bytes)", fi.Size(), limitName, limit)
	}
	return nil
}

// TypeName names the type of a file that is not regular.
func TypeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "mode " + m.String()
}
