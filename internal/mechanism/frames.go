package mechanism

// join concatenates frame lists into a new slice: the shared lists are
// never appended to in place, so no entry's list can change another's.
func join(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}
