package method

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dimred/dimred/kernel"
	"github.com/dimred/dimred/param"
)

// Route splits parameter settings among the selected methods, as the
// command line's -p does: "key=value" goes to every selected method that
// has key, and "name.key=value" to method name only (it wins over an
// unscoped key, whatever the order). A setting that is not key=value, a
// key that no selected method has, a method prefix that is not selected,
// and a key (or method.key) given twice are errors naming the option name
// (the flag, e.g. "-p"); the values are checked by New.
func Route(name string, flags []string, selected []Info) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	names := make([]string, len(selected))
	for i, info := range selected {
		out[info.Name] = map[string]string{}
		names[i] = info.Name
	}
	if err := RepeatedKey(name, flags); err != nil {
		return nil, err
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
		var to, has []Info
		for _, info := range selected {
			if !info.HasParam(k) {
				continue
			}
			has = append(has, info)
			if !ShorthandApplies(info, k, flags) {
				continue // sigma for a method whose kernel is poly: not for it
			}
			out[info.Name][k] = v
			to = append(to, info)
		}
		if len(to) == 0 && len(has) > 0 {
			// It applies to none of them: let New say why.
			for _, info := range has {
				out[info.Name][k] = v
			}
			to = has
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

// RepeatedKey returns an error naming the option name (the flag, e.g.
// "-p") when two of the key=value settings flags give one key (or one
// method.key), case aside: the last would win without a word.
func RepeatedKey(name string, flags []string) error {
	given := map[string]string{} // key or method.key → its first flag
	for _, kv := range flags {
		k, _, _ := strings.Cut(kv, "=")
		if first, ok := given[strings.ToLower(k)]; ok {
			return fmt.Errorf("%s %s: %s is already given (%s %s); give each key once (a method.key=value flag sets one method's value apart from the others')", name, kv, k, name, first)
		}
		given[strings.ToLower(k)] = kv
	}
	return nil
}

// ShorthandApplies reports whether an unscoped setting of key, among
// flags, is for method info: false only for a kernel shorthand (sigma,
// gamma, degree, offset) that the kernel info gets from flags does not
// use, as sigma for a method whose kernel is polynomial. Route sends such
// a setting only to the methods it applies to.
func ShorthandApplies(info Info, key string, flags []string) bool {
	if !kernelShorthand(key) {
		return true
	}
	typ := kernelType(info, flags)
	return typ == "" || kernel.Applies(typ, key) // "": no kernel (AQMIDA's sigma is its own)
}

// kernelShorthand reports whether key is one of the kernel parameters a
// kernel method also takes on its own (sigma=2 for kernel=rbf:sigma=2).
func kernelShorthand(key string) bool {
	switch key {
	case "sigma", "gamma", "degree", "offset":
		return true
	}
	return false
}

// kernelType is the type of the kernel that method info gets from flags:
// a scoped name.kernel=… wins over an unscoped kernel=…, and without
// either it is the method's default ("" for a method without a kernel).
// An unscoped sigma=2 goes only to the methods whose kernel uses it.
func kernelType(info Info, flags []string) string {
	typ := ""
	for _, p := range info.Params {
		if p.Name == "kernel" {
			typ = p.Default
		}
	}
	if typ == "" {
		return ""
	}
	scoped := false
	for _, kv := range flags {
		k, v, _ := strings.Cut(kv, "=")
		m, key, isScoped := strings.Cut(k, ".")
		switch {
		case isScoped && strings.EqualFold(m, info.Name) && key == "kernel":
			typ, scoped = v, true
		case !isScoped && k == "kernel" && !scoped:
			typ = v
		}
	}
	t, _, _ := strings.Cut(typ, ":")
	return strings.TrimSpace(t)
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
