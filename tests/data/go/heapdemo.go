// Makes a Go heap profile and a CPU profile of the same small program;
// "more-small" as third argument triples the small allocations.
package main

import (
	"os"
	"runtime"
	"runtime/pprof"
)

var keep [][]byte

func allocBig() {
	for i := 0; i < 64; i++ {
		keep = append(keep, make([]byte, 1<<20))
	}
}

func allocSmall(n int) {
	for i := 0; i < n; i++ {
		keep = append(keep, make([]byte, 512))
	}
}

func spin(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i % 7
	}
	return s
}

func main() {
	runtime.MemProfileRate = 4096
	cpu, _ := os.Create(os.Args[2])
	pprof.StartCPUProfile(cpu)
	allocBig()
	if len(os.Args) > 3 && os.Args[3] == "more-small" {
		allocSmall(60000)
	} else {
		allocSmall(20000)
	}
	spin(300000000)
	pprof.StopCPUProfile()
	cpu.Close()
	runtime.GC()
	heap, _ := os.Create(os.Args[1])
	pprof.WriteHeapProfile(heap)
	heap.Close()
}
