package plugin

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flowlua/flowlua/engine/boundedfile"
)

// Bounds of a plugin directory.
const (
	maxFiles    = 256     // Lua files in one plugin
	maxFileSize = 8 << 20 // bytes of one file
	maxDepth    = 8       // directory levels
	manifestLua = "plugin.lua"
)

// files are the Lua files of a plugin directory, read once: components
// run the code that was read and checked, whatever happens to the
// directory afterwards.
type files struct {
	dir    string            // the directory as shown in messages ("plugins/acme")
	src    map[string][]byte // by slash-separated path relative to dir
	onDisk bool              // dir is a directory on disk (not embedded)
	// missing are the files loading looked for and did not find
	// (a component's file), relative as the keys of src.
	missing []string
}

// display returns how messages name a file of the plugin.
func (f *files) display(rel string) string {
	if f.onDisk {
		return filepath.Join(f.dir, filepath.FromSlash(rel))
	}
	return path.Join(f.dir, rel)
}

// addTo records the files on disk in l, and those looked for and not
// found, for the watcher. f may be nil.
func (f *files) addTo(l *Loaded) {
	if f == nil || !f.onDisk {
		return
	}
	for _, rel := range slices.Sorted(maps.Keys(f.src)) {
		l.addFile(f.display(rel), f.src[rel])
	}
	for _, rel := range f.missing {
		l.addMissing(f.display(rel))
	}
}

// fingerprint hashes the files and the grants the components run with:
// a change of either rebuilds the plugin's running components.
func (f *files) fingerprint(grants []string) string {
	h := sha256.New()
	for _, rel := range slices.Sorted(maps.Keys(f.src)) {
		fmt.Fprintf(h, "%s\x00%d\x00", rel, len(f.src[rel]))
		h.Write(f.src[rel])
	}
	fmt.Fprintf(h, "grants\x00%s", strings.Join(grants, ","))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// readDirFiles reads the Lua files of the plugin directory dir on disk.
// The directory is opened as an os.Root: symbolic links cannot lead
// outside it.
func readDirFiles(dir string) (*files, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	f, err := readFS(root.FS(), dir)
	if err != nil {
		return nil, err
	}
	f.onDisk = true
	return f, nil
}

// readFS reads the Lua files of a plugin held in fsys (its root is the
// plugin directory); dir names it in messages.
func readFS(fsys fs.FS, dir string) (*files, error) {
	f := &files{dir: dir, src: map[string][]byte{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && (strings.Count(p, "/") >= maxDepth || strings.HasPrefix(d.Name(), ".")) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".lua") || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if len(f.src) == maxFiles {
			return fmt.Errorf("more than %d Lua files", maxFiles)
		}
		info, err := fs.Stat(fsys, p) // follows a symbolic link, as the read does
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file (%s)", f.display(p), boundedfile.TypeName(info.Mode()))
		}
		if info.Size() > maxFileSize {
			return fmt.Errorf("%s: file too large (more than %d bytes)", f.display(p), maxFileSize)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		f.src[p] = data
		return nil
	})
	if err != nil {
		return nil, err
	}
	if _, ok := f.src[manifestLua]; !ok {
		return nil, fmt.Errorf("%w: no %s in %s", errNoManifest, manifestLua, dir)
	}
	return f, nil
}

// errNoManifest is returned for a directory that is no plugin.
var errNoManifest = errors.New("not a plugin directory")
