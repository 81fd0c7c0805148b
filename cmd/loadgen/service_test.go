package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// uncache takes a file out of the page cache: read, all of it is resident;
// uncached, none. The file is on the checkout's disk (its .data), not
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
	require.Equal(t, pages, resident(t, path, size), "read, the whole file is cached")

	uncache(path)
	require.Zero(t, resident(t, path, size), "uncached, none of it")
}

// resident counts the pages of the file at path that are in the page cache.
func resident(t *testing.T, path string, size int) int {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	m, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ, unix.MAP_SHARED)
	require.NoError(t, err)
	defer func() { require.NoError(t, unix.Munmap(m)) }()
	vec := make([]byte, (size+os.Getpagesize()-1)/os.Getpagesize())
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0])))
	require.Zero(t, errno, "mincore")
	n := 0
	for _, v := range vec {
		n += int(v & 1)
	}
	return n
}
