package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/tuneloop/tuneloop/internal/finding"
)

// A catalog another tuneloop is writing (two runs ending together, a
// `runs rebuild`) is busy: each statement waits busyTimeout inside SQLite,
// then the write is tried again, saying once that it waits, for up to
// maxBusyWait; past that the error says what to do.
const (
	busyTimeoutMS = 1000
	maxBusyWait   = 60 * time.Second
)

// isBusy reports SQLITE_BUSY / SQLITE_LOCKED.
func isBusy(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "SQLITE_BUSY") || strings.Contains(s, "database is locked") || strings.Contains(s, "SQLITE_LOCKED")
}

// ErrBusy marks a catalog still busy after maxBusyWait.
var ErrBusy = errors.New("catalog busy")

// exec runs a writing statement, waiting for a busy catalog.
func (c *Catalog) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	start := time.Now()
	said := false
	for {
		res, err := c.db.ExecContext(ctx, query, args...)
		if !isBusy(err) {
			return res, err
		}
		waited := time.Since(start)
		if waited >= c.maxWait() {
			return nil, fmt.Errorf("%w: %w", ErrBusy, finding.Errorf(finding.T("%s stayed busy for %s (another tuneloop is writing it: `fuser %s` names it); the run folder is complete on its own: add it later with `tuneloop runs add DIR`",
				"%s 持续繁忙 %s（另一个 tuneloop 正在写它：`fuser %s` 可查出是谁）；运行目录本身是完整的：稍后可用 `tuneloop runs add DIR` 加入"), c.Path, waited.Round(time.Second), c.Path))
		}
		if !said && c.Waiting != nil {
			said = true
			c.Waiting(finding.Tf(finding.T("the catalog %s is busy (another tuneloop is writing it): waiting up to %s",
				"目录数据库 %s 正忙（另一个 tuneloop 正在写它）：最多等待 %s"), c.Path, c.maxWait()))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (c *Catalog) maxWait() time.Duration {
	if c.MaxWait > 0 {
		return c.MaxWait
	}
	return maxBusyWait
}
