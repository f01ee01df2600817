package testenv

import "gopkg.in/yaml.v3"

// IntLiteral is a YAML integer as written: labelled jetton amounts exceed
// 64 bits and must not pass through float64.
type IntLiteral string

// YAMLValue converts a YAML node (toncenter's labelled cases) to maps,
// lists, strings, bools and IntLiterals.
func YAMLValue(n *yaml.Node) any {
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 1 {
			return YAMLValue(n.Content[0])
		}
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = YAMLValue(n.Content[i+1])
		}
		return m
	case yaml.SequenceNode:
		l := make([]any, len(n.Content))
		for i, c := range n.Content {
			l[i] = YAMLValue(c)
		}
		return l
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!int":
			return IntLiteral(n.Value)
		case "!!bool":
			return n.Value == "true"
		case "!!null":
			return nil
		}
		return n.Value
	}
	return nil
}
