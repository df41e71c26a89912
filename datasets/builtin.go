package datasets

import (
	"fmt"
	"strings"

	"github.com/dimred/dimred/data"
)

// builtin is one entry of the catalogue behind Builtin and Names.
type builtin struct {
	name string
	load func() (*data.Dataset, error)
}

func table(name string) func() (*data.Dataset, error) {
	return func() (*data.Dataset, error) { return parseTable(name) }
}

func twoClass(k TwoClassKind) func() (*data.Dataset, error) {
	return func() (*data.Dataset, error) { return TwoClass(DefaultTwoClassOptions(k)) }
}

var catalogue = []builtin{
	{"iris", table("iris")},
	{"wine", table("wine")},
	{"breast_cancer", table("breast_cancer")},
	{"digits", table("digits")},
	{"swissroll", func() (*data.Dataset, error) { return SwissRoll(DefaultSwissRollOptions()) }},
	{TwoClassIdeal.String(), twoClass(TwoClassIdeal)},
	{TwoClassLPPFails.String(), twoClass(TwoClassLPPFails)},
	{TwoClassMultimodal.String(), twoClass(TwoClassMultimodal)},
	{"gaussians", func() (*data.Dataset, error) { return GaussianMixture(DefaultGaussianMixtureOptions()) }},
}

// aliases maps further accepted spellings (after normalisation) to
// canonical names.
var aliases = map[string]string{
	"multimodal": "twoclass_multimodal",
	"gaussian":   "gaussians",
	"mixture":    "gaussians",
	"cancer":     "breast_cancer",
}

// Names returns the canonical names accepted by [Builtin], embedded tables
// first, then generators (run with their Default*Options).
func Names() []string {
	names := make([]string, len(catalogue))
	for i, b := range catalogue {
		names[i] = b.name
	}
	return names
}

// Builtin returns the built-in data set called name: one of [Names], with
// an optional "builtin:" prefix; case, '-' and '_' do not matter
// ("builtin:Breast-Cancer", "swiss_roll"). Generated sets use their default
// parameters and seed, so every call returns the same data. The result is
// a fresh copy the caller may modify.
func Builtin(name string) (*data.Dataset, error) {
	key := normalise(name)
	if canon, ok := aliases[key]; ok {
		key = normalise(canon)
	}
	for _, b := range catalogue {
		if normalise(b.name) == key {
			return b.load()
		}
	}
	return nil, fmt.Errorf("datasets: unknown built-in data set %q; known: %s", name, strings.Join(Names(), ", "))
}

func normalise(name string) string {
	s := strings.ToLower(strings.TrimSpace(name))
	s = strings.TrimPrefix(s, "builtin:")
	return strings.NewReplacer("_", "", "-", "", " ", "").Replace(s)
}
