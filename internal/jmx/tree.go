// JMeter test plans (.jmx) as a generic element tree. Sample lines:
//
//	<jmeterTestPlan version="1.2" properties="5.0" jmeter="5.4.1">
//	  <hashTree>
//	    <ThreadGroup guiclass="ThreadGroupGui" testclass="ThreadGroup" testname="Users" enabled="true">
//	      <stringProp name="ThreadGroup.num_threads">5</stringProp>
//	    </ThreadGroup>
//	    <hashTree>
//	      <HTTPSamplerProxy guiclass="HttpTestSampleGui" testclass="HTTPSamplerProxy" testname="Home Page" enabled="true">
//
// A hashTree holds elements, each followed by the hashTree of its children.

package jmx

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxPlanBytes bounds what is read of a plan: real plans are kilobytes to a
// few megabytes.
const maxPlanBytes = 64 << 20

// node is one XML element of the plan.
type node struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Kids    []*node    `xml:",any"`
}

// elem is a test element with the hashTree of its children.
type elem struct {
	n    *node
	kids []elem
}

func (n *node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// class is the element's test class: the testclass attribute, else the tag
// (older plans name the class by the tag only).
func (n *node) class() string {
	if c := n.attr("testclass"); c != "" {
		return c
	}
	return n.XMLName.Local
}

func (n *node) name() string { return n.attr("testname") }

func (n *node) enabled() bool { return n.attr("enabled") != "false" }

// prop is the direct child property called name (stringProp, boolProp,
// elementProp, collectionProp ...).
func (n *node) prop(name string) *node {
	if n == nil {
		return nil
	}
	for _, k := range n.Kids {
		if k.attr("name") == name && strings.HasSuffix(k.XMLName.Local, "Prop") {
			return k
		}
	}
	return nil
}

func (n *node) str(name string) string {
	if p := n.prop(name); p != nil {
		return strings.TrimSpace(p.Text)
	}
	return ""
}

// raw is a property's text untrimmed (bodies, header values keep spaces).
func (n *node) raw(name string) string {
	if p := n.prop(name); p != nil {
		return p.Text
	}
	return ""
}

func (n *node) boolean(name string) bool { return n.str(name) == "true" }

// props are the property children of a collectionProp.
func (n *node) props() []*node {
	if n == nil {
		return nil
	}
	var out []*node
	for _, k := range n.Kids {
		if strings.HasSuffix(k.XMLName.Local, "Prop") {
			out = append(out, k)
		}
	}
	return out
}

// readTree decodes a plan into the elements of its top hashTree.
func readTree(r io.Reader) ([]elem, error) {
	dec := xml.NewDecoder(io.LimitReader(r, maxPlanBytes))
	dec.Strict = true
	var root node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty file, not a JMeter test plan")
		}
		return nil, fmt.Errorf("not a JMeter test plan: %w", err)
	}
	if root.XMLName.Local != "jmeterTestPlan" {
		return nil, fmt.Errorf("not a JMeter test plan: the root element is <%s>, not <jmeterTestPlan>", root.XMLName.Local)
	}
	for _, k := range root.Kids {
		if k.XMLName.Local == "hashTree" {
			return pairs(k, 0)
		}
	}
	return nil, errors.New("not a JMeter test plan: no <hashTree>")
}

// maxDepth bounds the nesting of hashTrees (a hostile file could nest deeply).
const maxDepth = 200

// pairs turns a hashTree's children into elements with their subtrees.
func pairs(tree *node, depth int) ([]elem, error) {
	if depth > maxDepth {
		return nil, errors.New("test plan nested more than " + strconv.Itoa(maxDepth) + " levels deep")
	}
	var out []elem
	for i := 0; i < len(tree.Kids); i++ {
		k := tree.Kids[i]
		if k.XMLName.Local == "hashTree" {
			continue // a subtree without its element: ignore, as JMeter does
		}
		e := elem{n: k}
		if i+1 < len(tree.Kids) && tree.Kids[i+1].XMLName.Local == "hashTree" {
			sub, err := pairs(tree.Kids[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			e.kids = sub
			i++
		}
		out = append(out, e)
	}
	return out, nil
}
