#!/usr/bin/env bash
# capture-host.sh — copy the /proc, /sys and /etc files that tuneloop's host
# audit reads (internal/sysinfo/facts.go names each one) into a directory, so
# the audit can be replayed offline: `tuneloop check --root DIR`, or as a
# test fixture under testdata/hosts/NAME.
#
# Usage (as root for the most complete picture; as a normal user it captures
# what that user may read and skips the rest silently):
#
#   scripts/capture-host.sh OUTDIR            # OUTDIR/{proc,sys,etc}
#   tar czf host-$(hostname).tgz -C OUTDIR .  # send this archive to us
#
# Environment:
#   CAPTURE_MAX_BYTES  cap per file (default 1048576); larger files are truncated
#   CAPTURE_MAX_FDS    cap on /proc/PID/fd links per JVM (default 4096)
#
# What it copies (and nothing else):
#   /proc: cpuinfo stat meminfo swaps interrupts version cmdline
#          net/softnet_stat, the sysctls of sysinfo.SysctlKeys,
#          irq/N/{smp,effective}_affinity_list,
#          self/{cgroup,mountinfo} (of this shell), and for every java process
#          PID/{cmdline,comm,status,limits,cgroup,exe,fd/*} (exe and fd as
#          symlinks); for irqbalance/tuned/atuned/auditd/numad only PID/comm.
#   JAVA_HOME/release of each JVM (JAVA_HOME from the exe link), kept at its
#          host path: OUTDIR/usr/lib/jvm/jdk-17/release.
#   /sys:  CPU online/topology/cpufreq/cpuidle/smt/vulnerabilities, NUMA nodes
#          (cpulist, meminfo, distance), THP, clocksource, selinux/enforce,
#          hypervisor/type, dmi sys_vendor/product_name, the cgroup limit files
#          at the mount points /proc/self/mountinfo names, /sys/class/net/*
#          and /sys/block/* with the device-dir files the audit needs.
#   /etc:  os-release (dereferenced), tuned/active_profile, and the passwd
#          lines of root and of the users running the JVMs.
#
# Pseudo-files are copied with cat/head (cp of /proc files gives 0 bytes).
# Symlinks met on the way (/sys/class/net/X -> ../../devices/...,
# cpuN/cpufreq -> ../cpufreq/policyN, device, driver, /proc/PID/exe, fd/N)
# are stored as symlinks with their original target text, and the directories
# they point to are created at their real place in OUTDIR, so relative links
# resolve inside the capture (links to outside, e.g. exe, are left dangling).
# Files holding NUL bytes (binary) are dropped, except the NUL-separated
# /proc/PID/cmdline. Nothing on the host is changed.
#
# Privacy: the capture contains the hostname, kernel command line, JVM
# command lines (which may hold passwords in -D properties), mount points and
# the passwd lines named above. Review before sending.
set -u
export LC_ALL=C

MAXB=${CAPTURE_MAX_BYTES:-1048576}
MAXFDS=${CAPTURE_MAX_FDS:-4096}
DAEMONS=" irqbalance tuned atuned auditd numad "

# Keep in sync with sysinfo.SysctlKeys (TestCaptureScriptHasEverySysctl checks).
SYSCTLS="vm.swappiness vm.min_free_kbytes vm.dirty_ratio vm.dirty_background_ratio
vm.dirty_bytes vm.dirty_background_bytes vm.dirty_expire_centisecs
vm.zone_reclaim_mode vm.max_map_count vm.overcommit_memory vm.nr_hugepages
kernel.numa_balancing kernel.sched_autogroup_enabled kernel.nmi_watchdog
kernel.timer_migration kernel.perf_event_paranoid kernel.kptr_restrict
kernel.threads-max kernel.pid_max
fs.file-max fs.nr_open fs.file-nr
net.core.somaxconn net.core.netdev_max_backlog net.core.netdev_budget
net.core.rmem_max net.core.wmem_max net.core.rmem_default net.core.wmem_default
net.core.rps_sock_flow_entries net.core.busy_read net.core.busy_poll
net.ipv4.tcp_max_syn_backlog net.ipv4.tcp_syncookies net.ipv4.ip_local_port_range
net.ipv4.tcp_tw_reuse net.ipv4.tcp_fin_timeout net.ipv4.tcp_max_tw_buckets
net.ipv4.tcp_timestamps net.ipv4.tcp_rmem net.ipv4.tcp_wmem net.ipv4.tcp_mem
net.ipv4.tcp_slow_start_after_idle net.ipv4.tcp_keepalive_time net.ipv4.tcp_tw_recycle
net.ipv4.tcp_fastopen net.ipv4.tcp_notsent_lowat net.ipv4.tcp_congestion_control
net.netfilter.nf_conntrack_max net.netfilter.nf_conntrack_count"

CG_FILES="cpu.max cpu.stat cpu.cfs_quota_us cpu.cfs_period_us cpuset.cpus
cpuset.cpus.effective cpuset.effective_cpus memory.max memory.limit_in_bytes pids.max"

if [[ $# -ne 1 || $1 == -h || $1 == --help ]]; then
	sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 2
fi
mkdir -p -- "$1" || exit 1
DEST=$(cd -- "$1" && pwd) || exit 1
mkdir -p "$DEST/proc" "$DEST/sys" "$DEST/etc"

# resolve_path ABS: print the physical path of ABS, recreating under $DEST
# every symlink met on the way (same target text). Fails on loops/unreadable.
resolve_path() {
	local p=$1 depth=${2:-0} cur="" comp next t parts
	((depth > 10)) && return 1
	IFS=/ read -ra parts <<<"${p#/}"
	for comp in "${parts[@]}"; do
		case $comp in
		"" | .) continue ;;
		..) cur=${cur%/*}; continue ;;
		esac
		next="$cur/$comp"
		if [[ -L $next ]]; then
			t=$(readlink -- "$next") || return 1
			mkdir -p -- "$DEST$cur" 2>/dev/null
			[[ -L $DEST$next || -e $DEST$next ]] || ln -s -- "$t" "$DEST$next" 2>/dev/null
			if [[ $t == /* ]]; then
				cur=$(resolve_path "$t" $((depth + 1))) || return 1
			else
				cur=$(resolve_path "$cur/$t" $((depth + 1))) || return 1
			fi
		else
			cur=$next
		fi
	done
	printf '%s\n' "${cur:-/}"
}

# cap_to SRC DST [nul]: copy SRC's content (capped) to DST; drop on failure
# or (without "nul") when the content holds NUL bytes.
cap_to() {
	local src=$1 dst=$2 n1 n2
	[[ -f $src && -r $src ]] || return 0
	mkdir -p -- "${dst%/*}" 2>/dev/null || return 0
	if ! head -c "$MAXB" -- "$src" >"$dst" 2>/dev/null; then
		rm -f -- "$dst"
		return 0
	fi
	if [[ ${3:-} != nul ]]; then
		n1=$(wc -c <"$dst")
		n2=$(tr -d '\000' <"$dst" | wc -c)
		[[ $n1 == "$n2" ]] || rm -f -- "$dst"
	fi
	return 0
}

# cap DIR FILE...: copy files of one directory, keeping symlinked dirs.
cap() {
	local dir=$1 phys f
	shift
	[[ -e $dir ]] || return 0
	phys=$(resolve_path "$dir") || return 0
	for f in "$@"; do
		[[ -e $dir/$f ]] && cap_to "$dir/$f" "$DEST$phys/$f"
	done
	return 0
}

# cap_link PATH: store the symlink PATH as a symlink (target text kept).
cap_link() {
	local src=$1 t phys
	[[ -L $src ]] || return 0
	t=$(readlink -- "$src" 2>/dev/null) || return 0
	phys=$(resolve_path "${src%/*}") || return 0
	mkdir -p -- "$DEST$phys" 2>/dev/null
	ln -sfn -- "$t" "$DEST$phys/${src##*/}" 2>/dev/null
	return 0
}

# cap_cgroups PID OUTNAME: copy the cgroup limit files of PID's cgroups at
# the mount points its mountinfo names.
cap_cgroups() {
	local pid=$1 line ctrls path id parent mm root mp rest fstype super first dir sep
	local -a cglines=()
	mapfile -t cglines <"/proc/$pid/cgroup" 2>/dev/null || return 0
	while read -r id parent mm root mp rest; do
		sep=${rest#* - }
		read -r fstype _ super <<<"$sep"
		[[ $fstype == cgroup || $fstype == cgroup2 ]] || continue
		for line in "${cglines[@]}"; do
			ctrls=${line#*:}
			path=${ctrls#*:}
			ctrls=${ctrls%%:*}
			if [[ $fstype == cgroup2 ]]; then
				[[ -z $ctrls ]] || continue
			else
				[[ -n $ctrls ]] || continue
				first=${ctrls%%,*}
				[[ ",$super," == *",$first,"* ]] || continue
			fi
			if [[ $root == / ]]; then
				dir=$mp$path
			elif [[ $path == "$root" || $path == "$root"/* ]]; then
				dir=$mp${path#"$root"}
			else
				dir=$mp # cgroup namespace: our path is the mount root
			fi
			dir=${dir%/}
			# shellcheck disable=SC2086
			cap "${dir:-/}" $CG_FILES
		done
	done <"/proc/$pid/mountinfo"
}

# ---- /proc -------------------------------------------------------------
cap /proc cpuinfo stat meminfo swaps interrupts version cmdline
# /proc/net links to self/net: store the file under a plain proc/net dir.
cap_to /proc/net/softnet_stat "$DEST/proc/net/softnet_stat"
cap /proc/sys/kernel hostname osrelease arch
for k in $SYSCTLS; do
	f=/proc/sys/${k//.//}
	cap_to "$f" "$DEST$f"
done
for d in /proc/irq/[0-9]*; do
	cap_to "$d/smp_affinity_list" "$DEST$d/smp_affinity_list"
	cap_to "$d/effective_affinity_list" "$DEST$d/effective_affinity_list"
done
# proc/self is this shell (the context tuneloop would run in), stored as a
# real directory rather than a link to a PID.
cap_to "/proc/$$/cgroup" "$DEST/proc/self/cgroup"
cap_to "/proc/$$/mountinfo" "$DEST/proc/self/mountinfo"
cap_cgroups $$

uids=" 0 "
for d in /proc/[0-9]*; do
	pid=${d#/proc/}
	[[ $pid == "$$" || $pid == "$BASHPID" ]] && continue
	comm=$(cat -- "$d/comm" 2>/dev/null) || continue
	exe=$(readlink -- "$d/exe" 2>/dev/null) || exe=""
	argv0=$(tr '\000' '\n' <"$d/cmdline" 2>/dev/null | head -n 1)
	if [[ $comm == java || ${exe##*/} == java || ${argv0##*/} == java ]]; then
		cap_to "$d/comm" "$DEST$d/comm"
		cap_to "$d/cmdline" "$DEST$d/cmdline" nul
		for f in status limits cgroup; do cap_to "$d/$f" "$DEST$d/$f"; done
		[[ -n $exe ]] && ln -sfn -- "$exe" "$DEST$d/exe"
		# JAVA_HOME/release (version, vendor), at its host path in OUTDIR.
		home=${exe% (deleted)}
		home=${home%/bin/java}
		home=${home%/jre}
		[[ $home == /* && $home != "${exe% (deleted)}" ]] && cap_to "$home/release" "$DEST$home/release"
		if [[ -r $d/fd ]]; then
			mkdir -p "$DEST$d/fd"
			n=0
			for fd in "$d"/fd/*; do
				((n++ >= MAXFDS)) && break
				t=$(readlink -- "$fd" 2>/dev/null) && ln -sfn -- "$t" "$DEST$fd"
			done
		fi
		cap_cgroups "$pid"
		uid=$(awk '/^Uid:/{print $2; exit}' "$d/status" 2>/dev/null)
		[[ -n $uid ]] && uids+="$uid "
	elif [[ $DAEMONS == *" $comm "* ]]; then
		cap_to "$d/comm" "$DEST$d/comm"
	fi
done

# ---- /etc --------------------------------------------------------------
cap_to /etc/os-release "$DEST/etc/os-release"
cap /etc/tuned active_profile
if [[ -r /etc/passwd ]]; then
	awk -F: -v u="$uids" 'index(u, " " $3 " ")' /etc/passwd >"$DEST/etc/passwd"
fi

# ---- /sys --------------------------------------------------------------
C=/sys/devices/system/cpu
cap $C online
cap $C/smt active
cap $C/cpufreq boost
cap $C/intel_pstate status no_turbo min_perf_pct
cap $C/cpuidle current_driver current_governor current_governor_ro
for d in $C/cpu[0-9]*; do
	cap "$d/topology" physical_package_id core_id thread_siblings_list
	cap "$d/cpufreq" scaling_driver scaling_governor scaling_available_governors \
		energy_performance_preference
done
for d in $C/cpu0/cpuidle/state[0-9]*; do cap "$d" name latency disable; done
[[ -d $C/vulnerabilities ]] && for f in $C/vulnerabilities/*; do cap $C/vulnerabilities "${f##*/}"; done
for d in /sys/devices/system/node/node[0-9]*; do cap "$d" cpulist meminfo distance; done
cap /sys/kernel/mm/transparent_hugepage enabled defrag
cap /sys/devices/system/clocksource/clocksource0 current_clocksource available_clocksource
cap /sys/fs/selinux enforce
cap /sys/hypervisor type
cap /sys/class/dmi/id sys_vendor product_name

for n in /sys/class/net/*; do
	[[ -e $n ]] || continue
	cap "$n" operstate speed mtu type flags
	if [[ -L $n/device ]]; then
		cap_link "$n/device"
		cap_link "$n/device/driver"
		cap "$n/device" numa_node
		# virtio: the MSI vectors and NUMA node belong to the PCI parent.
		[[ -e $n/device/numa_node ]] || cap "$n/device/.." numa_node
		msi=$n/device/msi_irqs
		[[ -d $msi ]] || msi=$n/device/../msi_irqs
		if [[ -d $msi ]]; then
			for f in "$msi"/*; do [[ -f $f ]] && cap "$msi" "${f##*/}"; done
		fi
	fi
	for q in "$n"/queues/rx-*; do [[ -d $q ]] && cap "$q" rps_cpus rps_flow_cnt; done
	for q in "$n"/queues/tx-*; do [[ -d $q ]] && cap "$q" xps_cpus tx_timeout; done
done

for b in /sys/block/*; do
	[[ -e $b ]] || continue
	cap "$b" size
	cap "$b/queue" rotational scheduler read_ahead_kb nr_requests
	if [[ -L $b/device ]]; then
		cap_link "$b/device"
		cap_link "$b/device/subsystem"
		cap_link "$b/device/driver"
		cap "$b/device" model queue_depth numa_node
	fi
done

echo "captured into $DEST ($(find "$DEST" -type f | wc -l) files, $(find "$DEST" -type l | wc -l) symlinks)" >&2
