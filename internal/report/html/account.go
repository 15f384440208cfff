package html

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/tuneloop/tuneloop/internal/finding"
	"github.com/tuneloop/tuneloop/internal/report"
)

// accountHTML is the time-account section: a bar per thread role, and the
// mechanisms the catalogue matched.
type accountHTML struct {
	Legend []legendItem
	Rows   []accountRowView
	Mechs  []mechView
}

type accountRowView struct {
	Role, Pool, Source string
	Threads            int
	Bar                template.HTML
}

type mechView struct {
	Name, ID, Share, Code, Support string
	Symptom                        bool
}

// accountColors are the states in stacking order (Okabe-Ito palette).
func accountColors() []legendItem {
	return []legendItem{
		{"running", "#009E73"}, {"blocked", "#D55E00"}, {"parked", "#0072B2"}, {"waiting", "#56B4E9"},
		{"sleeping", "#F0E442"}, {"socket", "#CC79A7"}, {"file", "#E69F00"},
	}
}

// accountSection draws the rows as stacked bars of divs (no script).
func accountSection(p *report.RunPage, l finding.Lang, L map[string]string) *accountHTML {
	if len(p.Account) == 0 {
		return nil
	}
	colors := map[string]string{}
	for _, c := range accountColors() {
		colors[c.Name] = c.Color
	}
	v := &accountHTML{Legend: accountColors()}
	for _, r := range p.Account {
		var b strings.Builder
		b.WriteString(`<div class="hbar">`)
		for _, part := range r.Parts {
			c := colors[part.State]
			if c == "" {
				c = "#999999"
			}
			fmt.Fprintf(&b, `<i style="width:%.2f%%;background:%s" title="%s %.0f%%"></i>`, part.Pct, c, template.HTMLEscapeString(part.State), part.Pct)
		}
		b.WriteString(`</div><span class="hbarlbl">`)
		said := false
		for _, part := range r.Parts {
			if part.Pct < 5 {
				continue
			}
			if said {
				b.WriteString(" · ")
			}
			said = true
			fmt.Fprintf(&b, "%s %.0f%%", template.HTMLEscapeString(part.State), part.Pct)
		}
		b.WriteString(`</span>`)
		src := L["src"+r.Source]
		if src == "" {
			src = r.Source
		}
		v.Rows = append(v.Rows, accountRowView{Role: finding.SafeOneLine(r.Role), Pool: finding.SafeOneLine(r.Pool), Source: finding.SafeOneLine(src), Threads: r.Threads,
			Bar: template.HTML(b.String())})
	}
	for _, m := range p.Mechanisms {
		v.Mechs = append(v.Mechs, mechView{Name: finding.SafeOneLine(m.Name.In(l)), ID: finding.SafeOneLine(m.ID), Share: fmt.Sprintf("%.0f%%", m.Share),
			Code: finding.SafeOneLine(m.Code), Support: finding.SafeOneLine(m.Support + " " + m.Source), Symptom: m.Symptom})
	}
	return v
}
