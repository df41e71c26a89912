package data

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"gonum.org/v1/gonum/mat"
)

// ARFF attribute kinds.
const (
	arffNumeric = iota
	arffNominal
	arffString
	arffDate
)

var arffKindName = [...]string{"numeric", "nominal", "string", "date"}

type arffAttr struct {
	name   string
	kind   int
	line   int            // line of the @attribute declaration
	values []string       // nominal values in declaration order
	index  map[string]int // nominal value -> position in values
	num    []float64      // numeric value of each nominal value, if all are numbers
}

// ReadARFF reads Weka's ARFF format from r; name is the file name used in
// errors and for Dataset.Name. It accepts the header keywords in any case,
// quoted names and values (with ' or ", backslash escapes), '%' comments,
// numeric (real, integer, numeric), nominal, string and date attributes,
// dense and sparse ("{index value, ...}", 0-based) data rows, and instance
// weights ("…, {w}"): a weight of 1 is read as no weight; any other is an
// error naming the line, since no method here weighs rows, unless
// opt.Weights is "ignore", which reads the rows unweighted.
//
// The class attribute is opt.ClassAttr (default: "class" in any case, else
// the last); its values become the labels, in the declaration order for a
// nominal class, and '?' is Unlabeled. Attributes named in opt.Drop are left
// out. The other attributes are the features: numeric ones as they are,
// nominal ones as set by opt.Nominal; string and date attributes must be
// dropped. A '?' in a feature is an error unless opt.Missing is "drop",
// which leaves the row out and counts it in Dataset.DroppedRows.
func ReadARFF(r io.Reader, name string, opt Options) (*Dataset, error) {
	if err := checkOptions(name, opt); err != nil {
		return nil, err
	}
	lr := newLineReader(r, name)
	attrs, dataLine, err := readARFFHeader(lr)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(attrs))
	for i, a := range attrs {
		names[i] = a.name
	}

	// Roles: class, dropped, or feature.
	classIdx := -1
	if !opt.NoLabels {
		if opt.ClassAttr != "" {
			classIdx, err = resolveColumn(opt.ClassAttr, names, "attribute")
			if err != nil {
				return nil, lineErr(name, dataLine, "class attribute %q not found: %v", opt.ClassAttr, err)
			}
		} else {
			classIdx = len(attrs) - 1
			for i, a := range attrs {
				if strings.EqualFold(a.name, "class") {
					classIdx = i
					break
				}
			}
		}
	}
	dropped := make([]bool, len(attrs))
	for _, spec := range opt.Drop {
		i, err := resolveColumn(spec, names, "attribute")
		if err != nil {
			return nil, lineErr(name, dataLine, "cannot drop attribute %q: %v", spec, err)
		}
		if i == classIdx {
			return nil, lineErr(name, attrs[i].line, "attribute %q is the class attribute and cannot be dropped (give --no-labels for unlabelled data, or another --class-attr)", attrs[i].name)
		}
		dropped[i] = true
	}
	if classIdx >= 0 && attrs[classIdx].kind == arffDate {
		return nil, lineErr(name, attrs[classIdx].line, "class attribute %q is a date attribute; want a nominal, numeric or string class", attrs[classIdx].name)
	}

	onehot := opt.Nominal == "onehot"
	start := make([]int, len(attrs)) // first output column of each feature, -1 if none
	var featNames []string
	for i, a := range attrs {
		start[i] = -1
		if i == classIdx || dropped[i] {
			continue
		}
		switch a.kind {
		case arffString, arffDate:
			return nil, lineErr(name, a.line, "attribute %q is a %s attribute, which cannot be a feature; drop it with --drop (data.Options.Drop)", a.name, arffKindName[a.kind])
		}
		start[i] = len(featNames)
		if a.kind == arffNominal && onehot {
			for _, v := range a.values {
				featNames = append(featNames, a.name+"="+v)
			}
		} else {
			featNames = append(featNames, a.name)
		}
	}
	p := len(featNames)
	if p == 0 {
		return nil, lineErr(name, dataLine, "no feature attributes left (attributes: %s)", quoteList(names, 40))
	}

	var (
		vals       []float64
		labels     []string
		labelLines []int
		ndropped   int
		row        = make([]float64, p)
		sparse     = make([]arffField, len(attrs))
	)
	for {
		s, ok := lr.next()
		if !ok {
			break
		}
		fields, isSparse, weight, err := splitARFFRow(s)
		if err != nil {
			return nil, lineErr(name, lr.line, "%v", err)
		}
		if fields == nil && !isSparse {
			continue // blank or comment
		}
		if isSparse {
			for i, a := range attrs {
				switch a.kind {
				case arffNominal:
					sparse[i] = arffField{text: a.values[0], quoted: true}
				default:
					sparse[i] = arffField{text: "0", quoted: true}
				}
			}
			seen := map[int]bool{}
			for _, f := range fields {
				if f.index < 0 || f.index >= len(attrs) {
					return nil, lineErr(name, lr.line, "sparse index %d is out of range 0..%d", f.index, len(attrs)-1)
				}
				if seen[f.index] {
					return nil, lineErr(name, lr.line, "sparse index %d appears twice", f.index)
				}
				seen[f.index] = true
				sparse[f.index] = f
			}
			fields = sparse
		} else if len(fields) == len(attrs)+1 && isWeight(fields[len(fields)-1]) {
			weight = fields[len(fields)-1].text
			fields = fields[:len(attrs)]
		}
		if weight != "" {
			if err := checkARFFWeight(weight, opt.Weights); err != nil {
				return nil, lineErr(name, lr.line, "%v", err)
			}
		}
		if len(fields) != len(attrs) {
			return nil, lineErr(name, lr.line, "row has %d values, the header declares %d attributes", len(fields), len(attrs))
		}

		clear(row)
		missing := false
		label := ""
		for i, f := range fields {
			a := &attrs[i]
			isMissing := !f.quoted && f.text == "?"
			if i == classIdx {
				if isMissing {
					label = "?"
					continue
				}
				if a.kind == arffNominal {
					if _, ok := a.index[f.text]; !ok {
						return nil, lineErr(name, lr.line, "class attribute %q: value %q is not one of its declared values {%s}", a.name, short(f.text), strings.Join(a.values, ", "))
					}
				}
				label = f.text
				continue
			}
			if start[i] < 0 {
				continue
			}
			if isMissing {
				if opt.Missing == "drop" {
					missing = true
					continue
				}
				return nil, lineErr(name, lr.line, "attribute %q is missing ('?'); give --missing drop (data.Options.Missing = \"drop\") to drop such rows", a.name)
			}
			switch a.kind {
			case arffNumeric:
				v, msg := parseNumber(f.text)
				if msg != "" {
					return nil, lineErr(name, lr.line, "attribute %q: %s", a.name, msg)
				}
				row[start[i]] = v
			case arffNominal:
				k, ok := a.index[f.text]
				if !ok {
					return nil, lineErr(name, lr.line, "attribute %q: value %q is not one of its declared values {%s}", a.name, short(f.text), strings.Join(a.values, ", "))
				}
				switch {
				case onehot:
					row[start[i]+k] = 1
				case a.num != nil:
					row[start[i]] = a.num[k]
				default:
					row[start[i]] = float64(k)
				}
			}
		}
		if missing {
			ndropped++
			continue
		}
		vals = append(vals, row...)
		if classIdx >= 0 {
			labels = append(labels, label)
			labelLines = append(labelLines, lr.line)
		}
	}
	if err := lr.Err(); err != nil {
		return nil, err
	}
	n := len(vals) / p
	if n == 0 {
		if ndropped > 0 {
			return nil, lineErr(name, dataLine, "no data rows left: all %d rows have missing values", ndropped)
		}
		return nil, lineErr(name, dataLine, "no data rows after @data")
	}

	d := &Dataset{
		Name:         datasetName(name),
		X:            mat.NewDense(n, p, vals),
		FeatureNames: featNames,
		DroppedRows:  ndropped,
	}
	if classIdx >= 0 {
		classes := opt.Classes
		if classes == nil && attrs[classIdx].kind == arffNominal {
			classes = attrs[classIdx].values
		}
		y, cn, err := encodeLabels(labels, classes, opt.Unlabelled)
		if err != nil {
			var le *labelError
			if errors.As(err, &le) {
				return nil, lineErr(name, labelLines[le.Row], "class attribute %q: %s", attrs[classIdx].name, le.Msg)
			}
			return nil, err
		}
		d.Y, d.ClassNames = y, cn
	}
	return d, nil
}

// isWeight reports whether f is an instance weight "{w}".
func isWeight(f arffField) bool {
	return !f.quoted && strings.HasPrefix(f.text, "{") && strings.HasSuffix(f.text, "}")
}

// checkARFFWeight checks an instance weight "{w}" under the Weights
// option: it must be a finite number ≥ 0, and 1 unless the weights are
// ignored (no method here weighs rows, so dropping one silently would
// change what the data mean).
func checkARFFWeight(text, mode string) error {
	w := strings.TrimSpace(text[1 : len(text)-1])
	v, msg := parseNumber(w)
	if msg != "" || v < 0 {
		return fmt.Errorf("instance weight %s is not a finite number ≥ 0", short(text))
	}
	if v != 1 && mode != "ignore" {
		return fmt.Errorf("instance weight %s: dimred's methods weigh every row equally; remove the weights or give --arff-weights ignore (Options.Weights = \"ignore\") to read the rows unweighted", short(text))
	}
	return nil
}

// readARFFHeader reads up to and including the @data line and returns the
// attributes and the line number of @data.
func readARFFHeader(lr *lineReader) ([]arffAttr, int, error) {
	name := lr.name
	var attrs []arffAttr
	seen := map[string]int{}
	sawAny := false
	for {
		s, ok := lr.next()
		if !ok {
			break
		}
		if t := strings.TrimLeft(s, " \t"); len(t) >= 9 && strings.EqualFold(t[:9], "@relation") {
			// The relation name is not used (Dataset.Name comes from the
			// file name), so its quoting is not checked either.
			sawAny = true
			continue
		}
		toks, err := tokenizeARFFHeader(s)
		if err != nil {
			return nil, 0, lineErr(name, lr.line, "%v", err)
		}
		if len(toks) == 0 {
			continue
		}
		sawAny = true
		kw := strings.ToLower(toks[0].text)
		if toks[0].kind != 'w' {
			kw = ""
		}
		switch kw {
		case "@attribute":
			a, err := parseARFFAttribute(toks[1:])
			if err != nil {
				return nil, 0, lineErr(name, lr.line, "%v", err)
			}
			a.line = lr.line
			if prev, dup := seen[a.name]; dup {
				return nil, 0, lineErr(name, lr.line, "attribute %q is declared twice (first on line %d)", a.name, prev)
			}
			seen[a.name] = lr.line
			attrs = append(attrs, a)
		case "@data":
			if len(attrs) == 0 {
				return nil, 0, lineErr(name, lr.line, "@data before any @attribute declaration")
			}
			return attrs, lr.line, nil
		case "@end":
			return nil, 0, lineErr(name, lr.line, "relational attributes (@end) are not supported")
		default:
			return nil, 0, lineErr(name, lr.line, "unexpected %q in the ARFF header; want @relation, @attribute or @data", truncate(s, 60))
		}
	}
	if err := lr.Err(); err != nil {
		return nil, 0, err
	}
	if !sawAny {
		return nil, 0, lineErr(name, 0, "empty file: no ARFF header")
	}
	return nil, 0, lineErr(name, lr.line, "no @data section: the file ends in the header")
}

// parseARFFAttribute parses the tokens after "@attribute".
func parseARFFAttribute(toks []arffTok) (arffAttr, error) {
	if len(toks) == 0 || (toks[0].kind != 'w' && toks[0].kind != 'q') {
		return arffAttr{}, errors.New("@attribute without a name")
	}
	a := arffAttr{name: toks[0].text}
	toks = toks[1:]
	if len(toks) == 0 {
		return a, fmt.Errorf("attribute %q has no type", a.name)
	}
	if toks[0].kind == '{' {
		var cur []string
		pending := false
		closed := false
		for _, t := range toks[1:] {
			if closed {
				return a, fmt.Errorf("attribute %q: unexpected %q after the nominal values", a.name, t.text)
			}
			switch t.kind {
			case '}':
				closed = true
			case ',':
				if !pending {
					return a, fmt.Errorf("attribute %q: empty nominal value in the declaration", a.name)
				}
				a.values = append(a.values, strings.Join(cur, " "))
				cur, pending = cur[:0], false
			case '{':
				return a, fmt.Errorf("attribute %q: unexpected '{' in the nominal values", a.name)
			default:
				cur = append(cur, t.text)
				pending = true
			}
		}
		if !closed {
			return a, fmt.Errorf("attribute %q: nominal declaration without a closing '}'", a.name)
		}
		if pending {
			a.values = append(a.values, strings.Join(cur, " "))
		} else if len(a.values) > 0 {
			return a, fmt.Errorf("attribute %q: empty nominal value at the end of the declaration", a.name)
		}
		if len(a.values) == 0 {
			return a, fmt.Errorf("attribute %q: empty nominal declaration {}", a.name)
		}
		a.kind = arffNominal
		a.index = make(map[string]int, len(a.values))
		num := make([]float64, len(a.values))
		for k, v := range a.values {
			if _, dup := a.index[v]; dup {
				return a, fmt.Errorf("attribute %q: nominal value %q is declared twice", a.name, v)
			}
			a.index[v] = k
			if num != nil {
				f, msg := parseNumber(v)
				if msg != "" {
					num = nil
				} else {
					num[k] = f
				}
			}
		}
		a.num = num
		return a, nil
	}
	switch strings.ToLower(toks[0].text) {
	case "numeric", "real", "integer":
		a.kind = arffNumeric
	case "string":
		a.kind = arffString
	case "date":
		a.kind = arffDate
	case "relational":
		return a, fmt.Errorf("attribute %q: relational attributes are not supported", a.name)
	default:
		return a, fmt.Errorf("attribute %q: unknown type %q; want numeric, real, integer, string, date or {nominal values}", a.name, toks[0].text)
	}
	return a, nil
}

// arffTok is a token of an ARFF header line: kind 'w' (bare word), 'q'
// (quoted string, unescaped), '{', '}' or ','.
type arffTok struct {
	kind byte
	text string
}

// tokenizeARFFHeader splits a header line into tokens, stopping at an
// unquoted '%'.
func tokenizeARFFHeader(s string) ([]arffTok, error) {
	var toks []arffTok
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case isARFFSpace(c):
			i++
		case c == '%':
			return toks, nil
		case c == '{' || c == '}' || c == ',':
			toks = append(toks, arffTok{c, string(c)})
			i++
		case c == '\'' || c == '"':
			text, next, err := readQuoted(s, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, arffTok{'q', text})
			i = next
		default:
			j := i
			for j < len(s) && !isARFFSpace(s[j]) && !strings.ContainsRune("{},%", rune(s[j])) {
				j++
			}
			toks = append(toks, arffTok{'w', s[i:j]})
			i = j
		}
	}
	return toks, nil
}

func isARFFSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'
}

// readQuoted reads the string quoted by s[i] (' or ") starting at i and
// returns its unescaped text and the index after the closing quote.
func readQuoted(s string, i int) (string, int, error) {
	q := s[i]
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '\\' && j+1 < len(s):
			j++
			switch e := s[j]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(e)
			}
		case c == q:
			return b.String(), j + 1, nil
		default:
			b.WriteByte(c)
		}
	}
	return "", 0, fmt.Errorf("unterminated quoted string %s", truncate(s[i:], 40))
}

// arffField is one value of a data row; index is the attribute index of a
// sparse value.
type arffField struct {
	text   string
	quoted bool
	index  int
}

// splitARFFRow splits a data line into values. It returns nil, false for a
// blank or comment line, and sparse = true for a "{index value, ...}" row.
func splitARFFRow(s string) (fields []arffField, sparse bool, weight string, err error) {
	i := skipSpace(s, 0)
	if i == len(s) || s[i] == '%' {
		return nil, false, "", nil
	}
	if s[i] != '{' {
		for {
			var f arffField
			f.text, f.quoted, i, err = readARFFValue(s, i, ",%")
			if err != nil {
				return nil, false, "", err
			}
			fields = append(fields, f)
			i = skipSpace(s, i)
			if i == len(s) || s[i] == '%' {
				return fields, false, "", nil
			}
			if s[i] != ',' {
				return nil, false, "", fmt.Errorf("unexpected %q after value %q; want ','", s[i:i+1], f.text)
			}
			i++
		}
	}
	// Sparse row.
	i++
	fields = []arffField{}
	for {
		i = skipSpace(s, i)
		if i == len(s) {
			return nil, true, "", errors.New("sparse row without a closing '}'")
		}
		if s[i] == '}' && len(fields) == 0 {
			i++
			break
		}
		j := i
		for j < len(s) && !isARFFSpace(s[j]) && s[j] != ',' && s[j] != '}' {
			j++
		}
		idx, err := strconv.Atoi(s[i:j])
		if err != nil {
			return nil, true, "", fmt.Errorf("sparse value %q: want \"index value\" with a 0-based integer index", truncate(s[i:], 30))
		}
		f := arffField{index: idx}
		f.text, f.quoted, i, err = readARFFValue(s, j, ",}")
		if err != nil {
			return nil, true, "", err
		}
		fields = append(fields, f)
		i = skipSpace(s, i)
		if i == len(s) {
			return nil, true, "", errors.New("sparse row without a closing '}'")
		}
		if s[i] == '}' {
			i++
			break
		}
		if s[i] != ',' {
			return nil, true, "", fmt.Errorf("unexpected %q in sparse row; want ',' or '}'", s[i:i+1])
		}
		i++
	}
	// Optional instance weight ",{w}", then only a comment.
	i = skipSpace(s, i)
	if i < len(s) && s[i] == ',' {
		i = skipSpace(s, i+1)
		if i < len(s) && s[i] == '{' {
			k := strings.IndexByte(s[i:], '}')
			if k < 0 {
				return nil, true, "", errors.New("instance weight without a closing '}'")
			}
			weight = s[i : i+k+1]
			i = skipSpace(s, i+k+1)
		}
	}
	if i < len(s) && s[i] != '%' {
		return nil, true, "", fmt.Errorf("unexpected %q after the sparse row", truncate(s[i:], 30))
	}
	return fields, true, weight, nil
}

// readARFFValue reads one value starting at i (after optional spaces): a
// quoted string, or bare text up to one of the stop bytes (trimmed).
func readARFFValue(s string, i int, stops string) (text string, quoted bool, next int, err error) {
	i = skipSpace(s, i)
	if i < len(s) && (s[i] == '\'' || s[i] == '"') {
		text, next, err = readQuoted(s, i)
		return text, true, next, err
	}
	j := i
	for j < len(s) && !strings.ContainsRune(stops, rune(s[j])) {
		j++
	}
	return strings.TrimSpace(s[i:j]), false, j, nil
}

func skipSpace(s string, i int) int {
	for i < len(s) && isARFFSpace(s[i]) {
		i++
	}
	return i
}

// truncate shortens s to at most n bytes, marking the cut with "...".
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// short cuts a value quoted in an error message to its first 40 bytes,
// saying how long it was: a bad 5 MB field is not echoed whole.
func short(s string) string {
	if len(s) <= 48 {
		return s
	}
	return fmt.Sprintf("%s (%d bytes)", truncate(s, 40), len(s))
}
