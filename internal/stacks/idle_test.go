package stacks

import (
	"fmt"
	"strings"
	"testing"
)

func TestDropIdleWaits(t *testing.T) {
	p := &Profile{Kind: Lock, Unit: "nanoseconds", Total: 100, Samples: []Sample{
		{Stack: []string{"java.lang.Thread.run", "org.apache.tomcat.util.threads.ThreadPoolExecutor.runWorker", "org.apache.tomcat.util.threads.ThreadPoolExecutor.getTask",
			"java.util.concurrent.LinkedBlockingQueue.poll", "[park] java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject"}, Value: 70},
		{Stack: []string{"java.lang.Thread.run", "com.example.Service.handle", "ch.qos.logback.core.OutputStreamAppender.writeBytes", "[park] java.util.concurrent.locks.ReentrantLock$NonfairSync"}, Value: 25},
		{Stack: []string{"java.lang.Thread.run", "java.util.concurrent.ForkJoinPool.awaitWork", "[park] java.util.concurrent.ForkJoinPool"}, Value: 5},
	}}
	if d := p.DropIdleWaits(); d != 75 || p.Total != 25 || len(p.Samples) != 1 || p.Samples[0].Value != 25 {
		t.Errorf("dropped %d, total %d, %d stacks left", d, p.Total, len(p.Samples))
	}
	if tr := p.Tree(); int64(tr.Value) != p.Total {
		t.Errorf("tree %d, total %d", tr.Value, p.Total)
	}
}

// Add merges a stack into the sample of the same stack, or adds one, and
// keeps the samples most value first and the total theirs.
func TestProfileAdd(t *testing.T) {
	p := &Profile{Kind: Lock, Unit: "nanoseconds", Events: 2, Total: 30, Samples: []Sample{
		{Stack: []string{"a", "b"}, Value: 20, Events: 1}, {Stack: []string{"a", "c"}, Value: 10, Events: 1}}}
	p.Add([]string{"a", "c"}, 15)
	p.Add([]string{"a", "d"}, 5)
	p.Add(nil, 7)
	p.Add([]string{"a", "e"}, 0)
	var got []string
	for _, s := range p.Samples {
		got = append(got, fmt.Sprintf("%s=%d/%d", strings.Join(s.Stack, ";"), s.Value, s.Events))
	}
	if strings.Join(got, " ") != "a;c=25/1 a;b=20/1 a;d=5/0" || p.Total != 50 || p.Events != 2 {
		t.Errorf("%v, total %d, events %d", got, p.Total, p.Events)
	}
	if !IdleStack([]string{"java.lang.Thread.run", "java.util.concurrent.ThreadPoolExecutor.getTask", "[park] x"}) || IdleStack([]string{"a", "[park] x"}) {
		t.Error("IdleStack")
	}
}
