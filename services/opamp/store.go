package opamp

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// StateDir is the directory under --storage.path where the service keeps
// its state:
//
//	opamp/instance_uid          the agent's instance uid (a UUIDv7)
//	opamp/configs/<n>/...       remote configs, one directory each
//	opamp/applied.json          which of them applied last
const StateDir = "opamp"

// appliedFile is the record of the remote config that applied last.
type appliedFile struct {
	// Dir is the config's directory, relative to the configs directory.
	Dir string `json:"dir"`
	// Main is the main file, relative to Dir.
	Main string `json:"main"`
	// Hash is the server's hash of the config (hex).
	Hash string `json:"hash"`
}

// store keeps the service's state on disk.
type store struct {
	root string // <storage.path>/opamp
}

func newStore(storagePath string) store {
	return store{root: filepath.Join(storagePath, StateDir)}
}

func (s store) configsDir() string { return filepath.Join(s.root, "configs") }

// instanceUID returns the persisted instance uid, making and persisting a
// UUIDv7 the first time.
func (s store) instanceUID() (uuid.UUID, error) {
	path := filepath.Join(s.root, "instance_uid")
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		id, err := uuid.Parse(strings.TrimSpace(string(b)))
		if err != nil {
			return uuid.UUID{}, fmt.Errorf("%s: not a UUID: %w", path, err)
		}
		return id, nil
	case !errors.Is(err, fs.ErrNotExist):
		return uuid.UUID{}, fmt.Errorf("reading the instance uid: %w", err)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return uuid.UUID{}, fmt.Errorf("making an instance uid: %w", err)
	}
	if err := writeAtomic(path, []byte(id.String()+"\n")); err != nil {
		return uuid.UUID{}, fmt.Errorf("keeping the instance uid: %w", err)
	}
	return id, nil
}

// Applied returns the main file of the remote config that applied last
// under storagePath, and the server's hash of it; ok is false when none
// has applied. A restart starts from it, whether the server answers or
// not.
func Applied(storagePath string) (main string, hash []byte, ok bool, err error) {
	return newStore(storagePath).applied()
}

func (s store) applied() (main string, hash []byte, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(s.root, "applied.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil, false, nil
	}
	if err != nil {
		return "", nil, false, fmt.Errorf("reading the last applied remote config: %w", err)
	}
	var a appliedFile
	if err := json.Unmarshal(b, &a); err != nil {
		return "", nil, false, fmt.Errorf("%s: %w", filepath.Join(s.root, "applied.json"), err)
	}
	if !filepath.IsLocal(a.Dir) || !filepath.IsLocal(a.Main) {
		return "", nil, false, fmt.Errorf("%s: paths must stay under %s", filepath.Join(s.root, "applied.json"), s.root)
	}
	hash, err = hex.DecodeString(a.Hash)
	if err != nil {
		return "", nil, false, fmt.Errorf("%s: hash: %w", filepath.Join(s.root, "applied.json"), err)
	}
	main = filepath.Join(s.configsDir(), a.Dir, a.Main)
	if _, err := os.Stat(main); err != nil {
		return "", nil, false, fmt.Errorf("the last applied remote config: %w", err)
	}
	return main, hash, true, nil
}

// stage writes files (relative names, checked by configFiles) into a new
// directory under configs/, atomically: into a hidden directory first,
// renamed once every file is on disk. It returns the directory.
func (s store) stage(files map[string][]byte) (string, error) {
	if err := os.MkdirAll(s.configsDir(), 0o700); err != nil {
		return "", fmt.Errorf("creating %s: %w", s.configsDir(), err)
	}
	name := strconv.FormatInt(time.Now().UnixNano(), 10)
	tmp, err := os.MkdirTemp(s.configsDir(), ".staging-")
	if err != nil {
		return "", fmt.Errorf("staging a remote config: %w", err)
	}
	for rel, body := range files {
		path := filepath.Join(tmp, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			_ = os.RemoveAll(tmp)
			return "", fmt.Errorf("staging a remote config: %w", err)
		}
		if err := writeSynced(path, body); err != nil {
			_ = os.RemoveAll(tmp)
			return "", fmt.Errorf("staging a remote config: %w", err)
		}
	}
	dir := filepath.Join(s.configsDir(), name)
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.RemoveAll(tmp)
		return "", fmt.Errorf("staging a remote config: %w", err)
	}
	return dir, nil
}

// commit records dir (from stage) with its main file as the config that
// applied last, and removes every other config directory.
func (s store) commit(dir, main string, hash []byte) error {
	b, err := json.Marshal(appliedFile{Dir: filepath.Base(dir), Main: filepath.ToSlash(main), Hash: hex.EncodeToString(hash)})
	if err != nil {
		return err
	}
	if err := writeAtomic(filepath.Join(s.root, "applied.json"), b); err != nil {
		return fmt.Errorf("recording the applied remote config: %w", err)
	}
	entries, err := os.ReadDir(s.configsDir())
	if err != nil {
		return fmt.Errorf("cleaning remote configs: %w", err)
	}
	for _, e := range entries {
		if e.Name() != filepath.Base(dir) {
			_ = os.RemoveAll(filepath.Join(s.configsDir(), e.Name()))
		}
	}
	return nil
}

// discard removes a staged directory that did not apply.
func (s store) discard(dir string) { _ = os.RemoveAll(dir) }

// writeAtomic writes b to path through a synced temporary file renamed
// over it, so that a crash leaves the old content or the new.
func writeAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := writeSynced(tmp, b); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
