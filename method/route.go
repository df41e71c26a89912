package method

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dimred/dimred/param"
)

// Route splits parameter settings among the selected methods, as the
// command line's -p does: "key=value" goes to every selected method that
// has key, and "name.key=value" to method name only (it wins over an
// unscoped key, whatever the order). A setting that is not key=value, a
// key that no selected method has, and a method prefix that is not
// selected are errors naming the option name (the flag, e.g. "-p"); the
// values are checked by New.
func Route(name string, flags []string, selected []Info) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	names := make([]string, len(selected))
	for i, info := range selected {
		out[info.Name] = map[string]string{}
		names[i] = info.Name
	}
	var scoped []string
	for _, kv := range flags {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s %s: not key=value or method.key=value", name, kv)
		}
		if strings.Contains(k, ".") {
			scoped = append(scoped, kv) // applied after the unscoped keys
			continue
		}
		var to []Info
		for _, info := range selected {
			if info.HasParam(k) {
				out[info.Name][k] = v
				to = append(to, info)
			}
		}
		if len(to) == 0 {
			return nil, fmt.Errorf("%s %s: %s", name, kv, unknownParam(k, selected))
		}
	}
	for _, kv := range scoped {
		k, v, _ := strings.Cut(kv, "=")
		m, key, _ := strings.Cut(k, ".")
		i := slices.Index(names, strings.ToLower(m))
		if i < 0 {
			return nil, fmt.Errorf("%s %s: method %s is not selected (-m %s)", name, kv, m, strings.Join(names, ","))
		}
		if !selected[i].HasParam(key) {
			return nil, fmt.Errorf("%s %s: %s", name, kv, unknownParam(key, selected[i:i+1]))
		}
		out[names[i]][key] = v
	}
	return out, nil
}

// HasParam reports whether the method has a parameter named key.
func (info Info) HasParam(key string) bool {
	return slices.ContainsFunc(info.Params, func(p Param) bool { return p.Name == key })
}

// unknownParam says that no method of infos has key, suggesting the
// nearest name one of them has.
func unknownParam(key string, infos []Info) string {
	var methods, known []string
	for _, info := range infos {
		methods = append(methods, info.Name)
		for _, p := range info.Params {
			known = append(known, p.Name)
		}
	}
	msg := fmt.Sprintf("unknown parameter %s for %s", key, strings.Join(methods, ", "))
	if near := param.Nearest(key, known); near != "" {
		return msg + "; did you mean " + near + "?"
	}
	return msg + " (see 'dimred methods -v')"
}
