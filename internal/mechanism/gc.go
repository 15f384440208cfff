package mechanism

// GC and memory: the collector stops every thread; these say why it runs
// so often or so long.
func gcEntries() []Entry {
	return []Entry{
		{
			ID: "mech.gc.humongous", Family: GC,
			Name: T("Humongous allocations: G1 evacuation fails (to-space exhausted)", "巨型对象分配：G1 疏散失败（to-space exhausted）"),
			Mechanism: T("On G1 an object of half a region or more is humongous: allocated straight into contiguous old regions, it fragments the heap and leaves no free regions to evacuate into, so young collections fail (to-space exhausted) and turn into long pauses or full GCs.",
				"在 G1 中，大于等于半个 Region 的对象是巨型对象：直接分配在连续的老年代 Region 中，造成碎片并使疏散没有空闲 Region 可用，年轻代回收因此失败（to-space exhausted），变成长停顿或 Full GC。"),
			Tradeoff: T("A larger region size means fewer regions (at most 2048 by default sizing) and coarser collection; reusing buffers needs care with concurrency.",
				"更大的 Region 意味着更少的 Region 与更粗的回收粒度；复用缓冲区需要注意并发安全。"),
			Sig: Signature{Needs: []Need{{Fact: "gc.humongous", Min: 1}}, Score: "gc.pause-pct", Scale: 100},
			Fixes: []Fix{{Do: T("Raise the region size so these objects are no longer humongous (-XX:G1HeapRegionSize=8m or 16m: twice the largest common allocation), and at the allocation site stream or reuse the large buffers instead of allocating them per request (the run's allocation profile names the site).",
				"增大 Region 使这些对象不再是巨型对象（-XX:G1HeapRegionSize=8m 或 16m：常见最大分配的两倍），并在分配处改为流式处理或复用大缓冲区，而不是每个请求分配（本次运行的分配剖析给出分配位置）。"),
				Apply: "-XX:G1HeapRegionSize=16m", Revert: "(remove -XX:G1HeapRegionSize)"}},
			References: []string{refG1},
		},
	}
}

func jvmEntries() []Entry { return nil }
