package main

import (
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// profiler captures the service's CPU profile during chosen phases when
// -profile names a directory (the service then serves pprof on debugAddr).
type profiler struct {
	dir, debugAddr string
	running        sync.WaitGroup
}

// during profiles the next d seconds into dir/name.pprof in the background.
func (p *profiler) during(name string, d time.Duration) {
	if p == nil || p.dir == "" {
		return
	}
	seconds := max(int(d/time.Second), 1)
	p.fetch(name+".pprof", fmt.Sprintf("profile?seconds=%d", seconds))
	// What the phase allocated (a delta of the allocation profile): the
	// collector's share of the CPU profile follows from it.
	p.fetch(name+"-allocs.pprof", fmt.Sprintf("allocs?seconds=%d", seconds))
}

// fetch writes the service's pprof endpoint query to dir/file in the background.
func (p *profiler) fetch(file, query string) {
	p.running.Go(func() {
		url := fmt.Sprintf("http://%s/debug/pprof/%s", p.debugAddr, query)
		res, err := http.Get(url)
		if err != nil {
			log.Printf("profile %s: %v", file, err)
			return
		}
		defer res.Body.Close()
		f, err := os.Create(filepath.Join(p.dir, file))
		if err != nil {
			log.Printf("profile %s: %v", file, err)
			return
		}
		defer f.Close()
		_, _ = io.Copy(f, res.Body)
	})
}

// wait returns when every profile has been written: a phase shorter than
// its profile (the four-webhook drain takes about 4 s of a 5 s profile)
// would otherwise see the service stopped under it and lose the profile.
func (p *profiler) wait() {
	if p != nil {
		p.running.Wait()
	}
}
