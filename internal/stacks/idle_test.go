package stacks

import "testing"

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
