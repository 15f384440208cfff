package html

import "github.com/tuneloop/tuneloop/internal/finding"

// labels are the page's words in both languages, by the key the template
// and the section builders use. A function, not a package variable, so no
// caller can change the table another render reads.
func labels() map[string]finding.Text {
	return map[string]finding.Text{
		"report":         finding.T("tuneloop run report", "tuneloop 运行报告"),
		"verdict":        finding.T("Verdict", "结论"),
		"rootcause":      finding.T("Root cause", "根因"),
		"noverdict":      finding.T("No bottleneck found in this run: nothing crossed a diagnosis threshold.", "本次记录未发现瓶颈：没有指标超过诊断阈值。"),
		"seen":           finding.T("What was seen", "现状"),
		"fix":            finding.T("Fix", "修复"),
		"apply":          finding.T("apply", "执行"),
		"revert":         finding.T("revert", "回退"),
		"persist":        finding.T("persist", "持久化"),
		"note":           finding.T("note", "说明"),
		"reboot":         finding.T("needs a reboot", "需要重启生效"),
		"effect":         finding.T("Expected effect and trade-off", "预期效果与代价"),
		"support":        finding.T("Supporting evidence", "支撑证据"),
		"evidence":       finding.T("evidence", "证据"),
		"key":            finding.T("what", "指标"),
		"value":          finding.T("value", "值"),
		"source":         finding.T("source", "来源"),
		"why":            finding.T("why", "原因"),
		"recommend":      finding.T("recommend", "建议"),
		"risk":           finding.T("risk", "风险"),
		"for":            finding.T("applies to", "适用"),
		"ref":            finding.T("references", "参考"),
		"confidence":     finding.T("confidence", "置信度"),
		"load":           finding.T("Load", "负载"),
		"requests":       finding.T("requests", "请求数"),
		"errors":         finding.T("errors", "错误"),
		"tps":            finding.T("throughput", "吞吐"),
		"mean":           finding.T("mean", "平均"),
		"max":            finding.T("max", "最大"),
		"loadseries":     finding.T("Throughput and latency over time", "吞吐与延迟随时间变化"),
		"tpsaxis":        finding.T("requests/s", "请求/秒"),
		"errs":           finding.T("errors/s", "错误/秒"),
		"latency":        finding.T("latency", "延迟"),
		"cpu":            finding.T("CPU per core", "各 CPU 使用率"),
		"cpuall":         finding.T("all CPUs (mean)", "全部 CPU（平均）"),
		"cpuheat":        finding.T("busy % per CPU (us+sy+hi+si+wa+st), one row per CPU", "各 CPU 忙碌百分比（us+sy+hi+si+wa+st），每行一个 CPU"),
		"softirq":        finding.T("Softirq per CPU", "各 CPU 软中断"),
		"softmean":       finding.T("mean softirqs/s per CPU over the run", "整个记录期间各 CPU 平均软中断/秒"),
		"netrxheat":      finding.T("NET_RX/s per CPU over time (log colour scale), one row per CPU", "各 CPU NET_RX/秒随时间变化（对数色标），每行一个 CPU"),
		"cpukern":        finding.T("kernel % per CPU (sy+hi+si), one row per CPU", "各 CPU 内核态百分比（sy+hi+si），每行一个 CPU"),
		"othersirq":      finding.T("other softirqs", "其他软中断"),
		"threads":        finding.T("Thread states per dump", "各次线程转储的线程状态"),
		"threadsaxis":    finding.T("threads", "线程数"),
		"locks":          finding.T("Contended locks", "竞争的锁"),
		"lock":           finding.T("lock", "锁"),
		"class":          finding.T("class", "类"),
		"kind":           finding.T("kind", "类型"),
		"waiters":        finding.T("waiters", "等待者"),
		"owner":          finding.T("owner", "持有者"),
		"ownerruns":      finding.T("owner is running", "持有者正在执行"),
		"dumps":          finding.T("dumps", "转储次数"),
		"more":           finding.T("more not shown", "条未显示"),
		"gc":             finding.T("Garbage collection", "垃圾回收"),
		"collector":      finding.T("collector", "收集器"),
		"throughput":     finding.T("GC throughput", "GC 吞吐"),
		"pauses":         finding.T("pauses", "停顿次数"),
		"fullgcs":        finding.T("full GCs", "Full GC"),
		"pausems":        finding.T("pause ms", "停顿毫秒"),
		"uptime":         finding.T("JVM uptime", "JVM 运行时间"),
		"flame":          finding.T("Hot stacks (flame graph)", "热点调用栈（火焰图）"),
		"flamehelp":      finding.T("width = share of samples; click a frame to zoom, click the bottom frame to reset", "宽度 = 采样占比；点击帧放大，点击最底部帧复原"),
		"samples":        finding.T("samples", "次采样"),
		"reset":          finding.T("reset zoom", "复原"),
		"flamecut":       finding.T("frames shown (the biggest)", "个帧（最大的）已显示"),
		"findings":       finding.T("Findings", "诊断"),
		"unavailable":    finding.T("Could not diagnose", "无法诊断"),
		"check":          finding.T("Host audit failures", "主机检查未通过项"),
		"facts":          finding.T("Host facts", "主机信息"),
		"severity":       finding.T("severity", "级别"),
		"finding":        finding.T("finding", "诊断项"),
		"generated":      finding.T("generated", "生成于"),
		"folder":         finding.T("folder", "目录"),
		"time":           finding.T("time", "时间"),
		"status":         finding.T("status", "状态"),
		"command":        finding.T("command", "命令"),
		"target":         finding.T("target", "目标"),
		"incomplete":     finding.T("INCOMPLETE: the recorder stopped without finishing (killed?); diagnosed the samples that were saved.", "不完整：记录进程未正常结束（被杀？）；仅根据已保存的采样诊断。"),
		"endedearly":     finding.T("ended early", "提前结束"),
		"counts":         finding.T("%d critical · %d warning · %d info", "严重 %d · 警告 %d · 提示 %d"),
		"nodata":         finding.T("no data", "无数据"),
		"sincestart":     finding.T("time since %s UTC", "自 %s UTC 起的时间"),
		"bandnote":       finding.T("; shaded: when the verdict held (%s – %s)", "；阴影：结论成立的时段（%s – %s）"),
		"contents":       finding.T("Contents", "目录"),
		"busy":           finding.T("busy", "忙碌"),
		"cpunum":         finding.T("CPU", "CPU"),
		"recordcost":     finding.T("recording cost", "记录开销"),
		"threadsdumps":   finding.T("threads per state in each thread dump", "每次线程转储中各状态的线程数"),
		"waitingthreads": finding.T("waiting", "等待线程"),
	}
}

// labelsIn is the label table in one language.
func labelsIn(l finding.Lang) map[string]string {
	t := labels()
	L := make(map[string]string, len(t))
	for k, v := range t {
		L[k] = v.In(l)
	}
	return L
}
