package rules

// All returns every rule of the knowledge base in a stable order: by
// category (platform first, then memory, kernel, network, storage, limits,
// JVM), and within a category in the order of the files.
func All() []Rule {
	var rs []Rule
	for _, group := range [][]Rule{
		powerRules(),
		cpuRules(),
		virtRules(),
		numaRules(),
		memoryRules(),
		kernelRules(),
		tuningRules(),
		securityRules(),
		netRules(),
		nicRules(),
		diskRules(),
		limitsRules(),
		cgroupRules(),
		jvmRules(),
		bishengRules(),
		manualRules(),
	} {
		rs = append(rs, group...)
	}
	return rs
}
