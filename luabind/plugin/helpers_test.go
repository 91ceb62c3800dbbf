package plugin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/flowlua/flowlua/engine/script"
)

// writeTxtar writes the files of a txtar archive under dir.
func writeTxtar(t testing.TB, dir, archive string) {
	t.Helper()
	for _, f := range txtar.Parse([]byte(archive)).Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// diagnostics returns the lines of a load error.
func diagnostics(err error) string {
	if err == nil {
		return ""
	}
	return strings.TrimSpace(script.AsDiagnostics(err).Error())
}
