package diagnose

// The external tests (package diagnose_test, which may import verdict to
// read run folders) use these.
var (
	KunpengFacts     = kunpengFacts
	SoftirqSnapshots = softirqSnapshots
	CopyDir          = copyDir
	FindFail         = find
	Keys             = ids
)
