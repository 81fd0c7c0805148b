package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// uncache takes a file out of the page cache and counts what stayed: read,
// all of it is resident; uncached, none, by its own count too. The file is on the checkout's disk (its .data), not
// under a temporary directory that may be memory (tmpfs), whose pages no
// advice evicts.
func TestUncacheEvictsTheBinarysPages(t *testing.T) {
	data := filepath.Join("..", "..", ".data")
	require.NoError(t, os.MkdirAll(data, 0o755))
	dir, err := os.MkdirTemp(data, "uncache-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	path := filepath.Join(dir, "payments")
	const size = 4 << 20
	f, err := os.Create(path)
	require.NoError(t, err)
	_, err = f.Write(bytes.Repeat([]byte{0x90}, size))
	require.NoError(t, err)
	require.NoError(t, f.Sync()) // the advice evicts clean pages only
	require.NoError(t, f.Close())
	content, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Len(t, content, size)
	pages := size / os.Getpagesize()
	require.Equal(t, [2]int{pages, pages}, resident(t, path), "read, the whole file is cached")

	cached, all := uncache(path)
	require.Equal(t, [2]int{0, pages}, [2]int{cached, all}, "uncache's own count")
	require.Equal(t, [2]int{0, pages}, resident(t, path), "uncached, none of it")
}

// resident is cachedPages of the file at path.
func resident(t *testing.T, path string) [2]int {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	cached, pages, err := cachedPages(f)
	require.NoError(t, err)
	return [2]int{cached, pages}
}
