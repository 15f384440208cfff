package threaddump

import (
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// Activity is what a thread does, read from the JDK frames above its first
// application frame: what a lock holder does inside the critical section is
// what the fix has to move out of it (an fsync, a file write, a remote call).
type Activity string

// Activities, from the most specific.
const (
	ActNone        Activity = ""
	ActFsync       Activity = "fsync"
	ActFileWrite   Activity = "file-write"
	ActFileRead    Activity = "file-read"
	ActFileIO      Activity = "file-io"
	ActSocketRead  Activity = "socket-read"
	ActSocketWrite Activity = "socket-write"
	ActSleep       Activity = "sleep"
	ActBlocked     Activity = "blocked"
	ActWaiting     Activity = "waiting"
	ActRunning     Activity = "running"
)

// fsyncMethods make data durable: FileChannel.force, FileDescriptor.sync,
// MappedByteBuffer.force (JDK 8 to 25 names).
var fsyncMethods = []string{
	"sun.nio.ch.FileDispatcherImpl.force", "sun.nio.ch.UnixFileDispatcherImpl.force",
	"sun.nio.ch.FileChannelImpl.force", "java.io.FileDescriptor.sync",
	"java.nio.MappedByteBuffer.force", "java.nio.MappedMemoryUtils.force",
}

// socketClasses: a socket call, whatever dispatcher does the syscall (JDK 8's
// SocketDispatcher writes through FileDispatcherImpl.write0).
var socketClasses = []string{
	"sun.nio.ch.SocketChannelImpl.", "sun.nio.ch.SocketDispatcher.", "sun.nio.ch.NioSocketImpl.",
	"java.net.SocketInputStream.", "java.net.SocketOutputStream.", "java.net.Socket$",
	"sun.security.ssl.SSLSocketImpl", "sun.security.ssl.SSLSocketInputRecord.", "sun.security.ssl.SSLSocketOutputRecord.",
	"sun.nio.ch.DatagramChannelImpl.", "java.net.PlainSocketImpl.",
}

// fileClasses: file channels and streams.
var fileClasses = []string{
	"sun.nio.ch.FileChannelImpl.", "sun.nio.ch.FileDispatcherImpl.", "sun.nio.ch.UnixFileDispatcherImpl.",
	"java.io.FileOutputStream.", "java.io.FileInputStream.", "java.io.RandomAccessFile.",
	"java.io.UnixFileSystem.", "sun.nio.fs.UnixNativeDispatcher.",
}

// activityDepth bounds the JDK frames looked at: an I/O call is a handful deep.
const activityDepth = 16

// ActivityOf classifies what t does.
func ActivityOf(t *Thread) Activity {
	if t == nil {
		return ActNone
	}
	st := t.Stack()
	// The first frame of each kind that says read or write: a socket write
	// parks in NioSocketImpl.park below NioSocketImpl.write.
	var socket, file bool
	var socketDir, fileDir string
	for i, f := range st {
		if i >= activityDepth || !isJDKFrame(f.Method) {
			break
		}
		if hasAnyPrefix(f.Method, fsyncMethods) {
			return ActFsync
		}
		if hasAnyPrefix(f.Method, socketClasses) {
			socket = true
			if socketDir == "" {
				socketDir = direction(f.Method)
			}
		}
		if hasAnyPrefix(f.Method, fileClasses) {
			file = true
			if fileDir == "" {
				fileDir = direction(f.Method)
			}
		}
	}
	switch {
	case socket:
		if socketDir == "write" {
			return ActSocketWrite
		}
		return ActSocketRead // parked until data arrives
	case file:
		switch fileDir {
		case "write":
			return ActFileWrite
		case "read":
			return ActFileRead
		}
		return ActFileIO
	}
	if len(st) > 0 && strings.HasPrefix(st[0].Method, "java.lang.Thread.sleep") {
		return ActSleep
	}
	switch t.State {
	case StateBlocked:
		return ActBlocked
	case StateWaiting, StateTimedWaiting:
		return ActWaiting
	case StateRunnable:
		return ActRunning
	}
	return ActNone
}

// direction of an I/O method by its name: "read", "write" or "".
func direction(method string) string {
	m := strings.ToLower(method[strings.LastIndexByte(method, '.')+1:])
	switch {
	case strings.Contains(m, "write"), strings.Contains(m, "transferfrom"):
		return "write"
	case strings.Contains(m, "read"), strings.Contains(m, "transferto"):
		return "read"
	}
	return ""
}

// IO: the activity waits for a disk or the network.
func (a Activity) IO() bool {
	switch a {
	case ActFsync, ActFileWrite, ActFileRead, ActFileIO, ActSocketRead, ActSocketWrite:
		return true
	}
	return false
}

// Text says the activity in words.
func (a Activity) Text() finding.Text {
	switch a {
	case ActFsync:
		return finding.T("flushing a file to disk (fsync)", "正在把文件刷到磁盘（fsync）")
	case ActFileWrite:
		return finding.T("writing a file", "正在写文件")
	case ActFileRead:
		return finding.T("reading a file", "正在读文件")
	case ActFileIO:
		return finding.T("in file I/O", "正在进行文件 I/O")
	case ActSocketRead:
		return finding.T("waiting for a socket read (a remote call)", "正在等待 Socket 读取（远程调用）")
	case ActSocketWrite:
		return finding.T("writing to a socket", "正在写 Socket")
	case ActSleep:
		return finding.T("sleeping", "正在 sleep")
	case ActBlocked:
		return finding.T("blocked on another lock", "在等待另一把锁")
	case ActWaiting:
		return finding.T("waiting (parked or in wait())", "在等待（park 或 wait()）")
	case ActRunning:
		return finding.T("running", "正在运行")
	}
	return finding.Text{}
}

// lockAdvice is what to do about a lock whose holder does a, or false when
// the generic advice fits.
func (a Activity) lockAdvice() (finding.Text, bool) {
	switch a {
	case ActFsync:
		return finding.T("Take the fsync out of the lock: append under the lock, and let one thread fsync everything appended so far and then acknowledge those requests (group commit, as InnoDB and PostgreSQL do); durability per acknowledged request is unchanged and one fsync covers many requests.",
			"把 fsync 移出锁：在锁内只追加写入，由一个线程对已追加的全部记录做一次 fsync 后再确认这些请求（组提交，InnoDB 和 PostgreSQL 的做法）；每个已确认请求的持久性不变，一次 fsync 覆盖多个请求。"), true
	case ActFileWrite, ActFileRead, ActFileIO:
		return finding.T("Take the file I/O out of the lock: buffer under the lock and write from one writer thread (or write in batches), or give each key its own file and lock.",
			"把文件 I/O 移出锁：锁内只写内存缓冲，由一个写线程（或批量）落盘，或按 key 拆分文件和锁。"), true
	case ActSocketRead, ActSocketWrite:
		return finding.T("Never call a remote service while holding a lock: copy what the call needs under the lock, make the call outside it, and set connect and read timeouts.",
			"不要在持有锁时调用远程服务：在锁内复制调用所需的数据，在锁外发起调用，并设置连接和读超时。"), true
	case ActSleep:
		return finding.T("A sleep or back-off inside the lock stalls every waiter: sleep outside the critical section, or wait on a condition that releases the lock.",
			"锁内的 sleep 或退避会让所有等待者停滞：在临界区外 sleep，或改用会释放锁的条件等待。"), true
	}
	return finding.Text{}, false
}

// HolderUnseen says whether a dump (text as jcmd prints it) shows a
// contended lock without its holder at work: released between owners, or
// the new owner caught in the handoff. Another dump a moment later may
// show what the holder does.
func HolderUnseen(text string) bool {
	ds, err := Parse("", strings.NewReader(text))
	if err != nil || len(ds) == 0 {
		return false
	}
	for _, c := range Analyze(ds[len(ds)-1]).Culprits {
		if c.Lock != nil && c.HolderActivity == ActNone {
			return true
		}
	}
	return false
}
