// Reference for bench/merkle.ts: builds the same tree with Go's golang.org/x/mod/sumdb/tlog
// and prints leaves per second for (a) tree building (tlog.StoredHashes, stored hashes kept
// in memory as the HashReader) and (c') building every hash tile's data in memory
// (tlog.NewTiles + tlog.ReadTileData), publishing every `step` leaves as merkle.ts does.
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go run . [leaves] [step]
//
// The entries are the synthetic ones of merkle.ts, byte for byte, so both print the same
// root. The last line is "RESULT <json>", which merkle.ts parses.
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"golang.org/x/mod/sumdb/tlog"
)

// Entry i: {"seq":<i, 10 digits>,"kind":"bench","body":"<157 letters>"}, 200 bytes.
const entrySize = 200
const seqAt = 7

func template() []byte {
	head := `{"seq":0000000000,"kind":"bench","body":"`
	tail := `"}`
	buf := []byte(head)
	for i := 0; len(buf) < entrySize-len(tail); i++ {
		buf = append(buf, byte('a'+i%26))
	}
	return append(buf, tail...)
}

func writeSeq(buf []byte, i int64) {
	for d := seqAt + 9; d >= seqAt; d-- {
		buf[d] = byte('0' + i%10)
		i /= 10
	}
}

func arg(i int, def int64) int64 {
	if len(os.Args) <= i {
		return def
	}
	v, err := strconv.ParseInt(os.Args[i], 10, 64)
	if err != nil || v <= 0 {
		fmt.Fprintf(os.Stderr, "bad argument %q\n", os.Args[i])
		os.Exit(2)
	}
	return v
}

func main() {
	n := arg(1, 1_000_000)
	step := arg(2, 65_536)

	hashes := make([]tlog.Hash, 0, tlog.StoredHashCount(n))
	reader := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			out[i] = hashes[x]
		}
		return out, nil
	})

	entry := template()
	start := time.Now()
	for i := int64(0); i < n; i++ {
		writeSeq(entry, i)
		stored, err := tlog.StoredHashes(i, entry, reader)
		if err != nil {
			panic(err)
		}
		hashes = append(hashes, stored...)
	}
	treeSeconds := time.Since(start).Seconds()
	root, err := tlog.TreeHash(n, reader)
	if err != nil {
		panic(err)
	}

	start = time.Now()
	tiles, tileBytes := 0, 0
	for old := int64(0); old < n; {
		size := old + step
		if size > n {
			size = n
		}
		for _, t := range tlog.NewTiles(8, old, size) {
			data, err := tlog.ReadTileData(t, reader)
			if err != nil {
				panic(err)
			}
			tiles++
			tileBytes += len(data)
		}
		old = size
	}
	tileSeconds := time.Since(start).Seconds()

	fmt.Printf("go tlog: %d leaves\n", n)
	fmt.Printf("  tree build (StoredHashes):     %8.3f s  %10.0f leaves/s\n", treeSeconds, float64(n)/treeSeconds)
	fmt.Printf("  tile data (NewTiles+ReadTileData, every %d): %d tiles, %8.3f s  %10.0f leaves/s\n",
		step, tiles, tileSeconds, float64(n)/tileSeconds)
	fmt.Printf("  root %x\n", root[:])
	result, _ := json.Marshal(map[string]any{
		"leaves":              n,
		"treeSeconds":         treeSeconds,
		"treeLeavesPerSecond": float64(n) / treeSeconds,
		"tileStep":            step,
		"tiles":               tiles,
		"tileSeconds":         tileSeconds,
		"tileLeavesPerSecond": float64(n) / tileSeconds,
		"root":                hex.EncodeToString(root[:]),
		"goVersion":           runtime.Version(),
	})
	fmt.Printf("RESULT %s\n", result)
}
