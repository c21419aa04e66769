package sim

// kvCache is a paged KV cache of fixed-size blocks like vLLM's: a free queue (LRU order,
// a doubly linked list over block ids) and, with prefix caching, a map from the hash chain
// of a full prompt block to the block holding it. A freed block keeps its hash (and stays
// reusable as a cache hit) until it is reallocated.
type kvCache struct {
	blockSize int
	numBlocks int
	refs      []int32
	hash      []uint64
	hashed    []bool
	cached    map[uint64]int32 // nil when prefix caching is off
	prev      []int32
	next      []int32
	head      int32 // first free block (evicted first), -1 when none
	tail      int32
	nfree     int
}

func newKVCache(numBlocks, blockSize int, prefixCaching bool) *kvCache {
	c := &kvCache{
		blockSize: blockSize, numBlocks: numBlocks,
		refs: make([]int32, numBlocks), hash: make([]uint64, numBlocks), hashed: make([]bool, numBlocks),
		prev: make([]int32, numBlocks), next: make([]int32, numBlocks),
		head: -1, tail: -1,
	}
	if prefixCaching {
		c.cached = make(map[uint64]int32)
	}
	for b := range numBlocks {
		c.pushTail(int32(b))
	}
	return c
}

func (c *kvCache) pushTail(b int32) {
	c.prev[b], c.next[b] = c.tail, -1
	if c.tail >= 0 {
		c.next[c.tail] = b
	} else {
		c.head = b
	}
	c.tail = b
	c.nfree++
}

func (c *kvCache) unlink(b int32) {
	p, n := c.prev[b], c.next[b]
	if p >= 0 {
		c.next[p] = n
	} else {
		c.head = n
	}
	if n >= 0 {
		c.prev[n] = p
	} else {
		c.tail = p
	}
	c.prev[b], c.next[b] = -1, -1
	c.nfree--
}

// blocksFor is the number of blocks that hold n tokens.
func (c *kvCache) blocksFor(n int) int { return (n + c.blockSize - 1) / c.blockSize }

// usage is the fraction of blocks in use (referenced by a request), 0..1.
func (c *kvCache) usage() float64 {
	if c.numBlocks == 0 {
		return 0
	}
	return float64(c.numBlocks-c.nfree) / float64(c.numBlocks)
}

// prefixHits returns how many leading full prompt blocks of r are in the cache, capped so
// that at least one prompt token is left to compute.
func (c *kvCache) prefixHits(r *Request) int {
	if c.cached == nil || len(r.BlockHashes) == 0 {
		return 0
	}
	limit := min(len(r.BlockHashes), (r.PromptTokens-1)/c.blockSize)
	n := 0
	for n < limit {
		if _, ok := c.cached[r.BlockHashes[n]]; !ok {
			break
		}
		n++
	}
	return n
}

// admit attaches hits cached prompt blocks to r (which holds no blocks) and allocates
// blocks so that r can hold total tokens; it changes nothing and returns false when the
// free blocks do not suffice.
func (c *kvCache) admit(r *Request, hits, total int) bool {
	freeHits := 0
	for i := range hits {
		if c.refs[c.cached[r.BlockHashes[i]]] == 0 {
			freeHits++
		}
	}
	if c.blocksFor(total)-hits > c.nfree-freeHits {
		return false
	}
	for i := range hits {
		b := c.cached[r.BlockHashes[i]]
		if c.refs[b] == 0 {
			c.unlink(b)
		}
		c.refs[b]++
		r.blocks = append(r.blocks, b)
	}
	r.registered = hits
	return c.grow(r, total)
}

// grow allocates blocks so that r can hold total tokens; false (and no change) when the
// free blocks do not suffice.
func (c *kvCache) grow(r *Request, total int) bool {
	need := c.blocksFor(total) - len(r.blocks)
	if need <= 0 {
		return true
	}
	if need > c.nfree {
		return false
	}
	for range need {
		b := c.head
		c.unlink(b)
		if c.hashed[b] {
			if c.cached[c.hash[b]] == b {
				delete(c.cached, c.hash[b])
			}
			c.hashed[b] = false
		}
		c.refs[b] = 1
		r.blocks = append(r.blocks, b)
	}
	return true
}

// register records the hashes of r's full prompt blocks computed so far.
func (c *kvCache) register(r *Request) {
	if c.cached == nil {
		return
	}
	full := min(r.computed/c.blockSize, len(r.BlockHashes))
	for ; r.registered < full; r.registered++ {
		h, b := r.BlockHashes[r.registered], r.blocks[r.registered]
		if _, ok := c.cached[h]; ok || c.hashed[b] {
			continue
		}
		c.cached[h], c.hash[b], c.hashed[b] = b, h, true
	}
}

// free releases r's blocks, the last block first so that the tail of a sequence is
// evicted before its (more shareable) head.
func (c *kvCache) free(r *Request) {
	for i := len(r.blocks) - 1; i >= 0; i-- {
		b := r.blocks[i]
		c.refs[b]--
		if c.refs[b] == 0 {
			c.pushTail(b)
		}
	}
	r.blocks = r.blocks[:0]
	r.registered = 0
}
