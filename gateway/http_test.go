package gateway

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTokenMadeKeptRotatedAndGuarded(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "serve")
	a, err := Token(dir, false)
	if err != nil || len(a) != 64 {
		t.Fatalf("first token %q: %v", a, err)
	}
	if b, _ := Token(dir, false); b != a {
		t.Errorf("token changed without rotate: %q %q", a, b)
	}
	c, err := Token(dir, true)
	if err != nil || c == a {
		t.Errorf("rotated %q (was %q): %v", c, a, err)
	}
	if err := os.Chmod(filepath.Join(dir, TokenFile), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Token(dir, false); err == nil {
		t.Error("a token file others may read was used")
	}
}

func TestLoopbackAddr(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:1": true, "[::1]:1": true, "localhost:1": true, "127.3.4.5:9": true,
		"0.0.0.0:1": false, ":1": false, "192.168.1.2:1": false, "example.com:1": false, "127.0.0.1": false} {
		if err := LoopbackAddr(addr); (err == nil) != ok {
			t.Errorf("%s: %v", addr, err)
		}
	}
}
