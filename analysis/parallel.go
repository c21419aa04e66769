package analysis

import (
	"runtime"
	"sync"
)

// parallelFor calls fn(0) … fn(n-1) on up to GOMAXPROCS goroutines and returns when
// all have returned. fn must touch only its own i's outputs; callers that merge the
// outputs in index order afterwards get the same result as a sequential loop.
func parallelFor(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				fn(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}

// pipeline calls produce(0) … produce(n-1) in order on the calling goroutine (a
// sequential source such as a random number generator) and hands each result to
// work(k, v) on up to GOMAXPROCS goroutines; at most a few results wait at a time, so
// memory stays bounded. It returns when every work call has returned. work must touch
// only its own k's outputs.
func pipeline[T any](n int, produce func(k int) T, work func(k int, v T)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for k := range n {
			work(k, produce(k))
		}
		return
	}
	type job struct {
		k int
		v T
	}
	jobs := make(chan job, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				work(j.k, j.v)
			}
		}()
	}
	for k := range n {
		jobs <- job{k, produce(k)}
	}
	close(jobs)
	wg.Wait()
}
