// Command helm-template renders a Helm chart directory for the chart tests (test/support/helm.ts).
//
// It is NOT Helm. No Helm binary can be installed where Lore is built, so this small renderer is
// built from the libraries Helm's template engine is made of: Go's text/template, Masterminds
// sprig v3 and sigs.k8s.io/yaml, wired together the way helm.sh/helm/v3's pkg/engine does it.
// What it covers:
//   - values: values.yaml coalesced with the -f files in order (maps merged deeply, later files
//     win, null deletes a default), parsed through sigs.k8s.io/yaml as Helm does, so numbers are
//     float64 (Helm's 1e+06 surprise included);
//   - .Values, .Release (Name, Namespace, Service, IsInstall, IsUpgrade, Revision), .Chart (the
//     Chart.yaml fields declared below; an unknown field fails loading), .Files (Get; the chart's
//     files outside templates/ and charts/, filtered by .helmignore like Helm's loader),
//     .Capabilities.APIVersions.Has (Kubernetes' built-in group/versions plus --api-versions),
//     .Template (Name, BasePath);
//   - sprig's TxtFuncMap without env and expandenv, and Helm's toYaml, fromYaml, toJson,
//     fromJson, include, tpl, required, fail and lookup (which answers an empty map, as Helm does
//     without a cluster), with Helm's error texts for required and fail;
//   - missingkey=zero and the removal of "<no value>"; templates parsed in Helm's order, _* files
//     only defining named templates; NOTES.txt rendered but printed only with --notes;
//   - output as `helm template` prints it: each non-empty document as "---\n# Source: <path>\n...",
//     documents checked to be YAML, hooks after the other manifests, crds/ with --include-crds.
//
// Not covered: subcharts and dependencies, values schema validation (the tests validate the
// coalesced values with Ajv, printed by --show-values), .Capabilities.KubeVersion and HelmVersion,
// .Files' Glob, Lines, AsConfig and AsSecrets, toToml, fromYamlArray and the must* variants, --set,
// lint and strict modes, ordering manifests by kind, and everything that needs a cluster (lookup
// finds nothing, hooks do not run). A live `helm template`, `helm lint` or `helm install` has not
// run on Lore's chart here: this renderer is the closest check available offline.
//
// Built in GOPATH mode from Debian's packages (golang-go, golang-github-masterminds-sprig-dev,
// golang-k8s-sigs-yaml-dev): GO111MODULE=off GOPATH=/usr/share/gocode go build -o helm-template main.go
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"sigs.k8s.io/yaml"
)

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// chartMetadata holds the Chart.yaml fields templates may read as .Chart.<Field>.
type chartMetadata struct {
	APIVersion  string            `json:"apiVersion"`
	Name        string            `json:"name"`
	Version     string            `json:"version"`
	AppVersion  string            `json:"appVersion"`
	Description string            `json:"description"`
	Type        string            `json:"type"`
	KubeVersion string            `json:"kubeVersion"`
	Home        string            `json:"home"`
	Keywords    []string          `json:"keywords"`
	Sources     []string          `json:"sources"`
	Annotations map[string]string `json:"annotations"`
}

// The group/versions a recent Kubernetes serves; `helm template` knows the same built-in set.
var builtinAPIVersions = []string{
	"v1", "admissionregistration.k8s.io/v1", "apiextensions.k8s.io/v1", "apps/v1", "autoscaling/v1",
	"autoscaling/v2", "batch/v1", "certificates.k8s.io/v1", "coordination.k8s.io/v1", "discovery.k8s.io/v1",
	"events.k8s.io/v1", "networking.k8s.io/v1", "node.k8s.io/v1", "policy/v1", "rbac.authorization.k8s.io/v1",
	"scheduling.k8s.io/v1", "storage.k8s.io/v1",
}

type apiVersions []string

// Has answers whether the cluster serves a group/version, as .Capabilities.APIVersions.Has does.
func (a apiVersions) Has(version string) bool {
	for _, v := range a {
		if v == version {
			return true
		}
	}
	return false
}

type capabilities struct{ APIVersions apiVersions }

// files is .Files: the chart's non-template files, by path relative to the chart.
type files map[string][]byte

// Get returns a file's content, or "" when the chart has no such file (as Helm's does).
func (f files) Get(name string) string { return string(f[name]) }

// Helm marks the messages of required and fail so that only they reach the user.
const warnStart, warnEnd = "HELM_ERR_START", "HELM_ERR_END"

var warnRegex = regexp.MustCompile(warnStart + `(.*)` + warnEnd)

func main() {
	var valueFiles, extraAPIVersions stringList
	flag.Var(&valueFiles, "f", "a values file to coalesce over values.yaml (repeatable, later wins)")
	flag.Var(&extraAPIVersions, "api-versions", "a group/version the cluster also serves (repeatable)")
	name := flag.String("name", "release-name", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	isUpgrade := flag.Bool("is-upgrade", false, "render as an upgrade (.Release.IsUpgrade)")
	notes := flag.Bool("notes", false, "print the rendered templates/NOTES.txt instead of the manifests")
	showValues := flag.Bool("show-values", false, "print the coalesced values as JSON and stop")
	includeCRDs := flag.Bool("include-crds", false, "print crds/ before the manifests")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: helm-template [flags] CHART_DIR")
		os.Exit(2)
	}
	out, err := run(flag.Arg(0), valueFiles, options{
		name: *name, namespace: *namespace, isUpgrade: *isUpgrade, notes: *notes, showValues: *showValues,
		includeCRDs: *includeCRDs, apiVersions: append(append(apiVersions{}, builtinAPIVersions...), extraAPIVersions...),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "Error: "+err.Error())
		os.Exit(1)
	}
	fmt.Print(out)
}

type options struct {
	name, namespace                           string
	isUpgrade, notes, showValues, includeCRDs bool
	apiVersions                               apiVersions
}

func run(chartDir string, valueFiles []string, o options) (string, error) {
	chartFile, err := os.ReadFile(filepath.Join(chartDir, "Chart.yaml"))
	if err != nil {
		return "", err
	}
	var chart chartMetadata
	if err := yaml.UnmarshalStrict(chartFile, &chart); err != nil {
		return "", fmt.Errorf("Chart.yaml: %w", err)
	}
	if chart.APIVersion != "v2" || chart.Name == "" || chart.Version == "" {
		return "", errors.New("Chart.yaml: apiVersion v2, name and version are required")
	}
	values, err := readValues(filepath.Join(chartDir, "values.yaml"))
	if err != nil {
		return "", err
	}
	for _, file := range valueFiles {
		override, err := readValues(file)
		if err != nil {
			return "", err
		}
		coalesce(values, override)
	}
	if o.showValues {
		data, err := json.Marshal(values)
		return string(data), err
	}
	templates, other, err := load(chartDir)
	if err != nil {
		return "", err
	}
	top := map[string]interface{}{
		"Values": values,
		"Chart":  chart,
		"Files":  other,
		"Release": map[string]interface{}{
			"Name": o.name, "Namespace": o.namespace, "Service": "Helm",
			"IsInstall": !o.isUpgrade, "IsUpgrade": o.isUpgrade, "Revision": 1,
		},
		"Capabilities": capabilities{APIVersions: o.apiVersions},
	}
	rendered, err := render(chart.Name, templates, top)
	if err != nil {
		return "", err
	}
	notesName := chart.Name + "/templates/NOTES.txt"
	if o.notes {
		return rendered[notesName], nil
	}
	var manifests, hooks, crds strings.Builder
	if o.includeCRDs {
		for _, file := range sortedKeys(other) {
			if strings.HasPrefix(file, "crds/") {
				fmt.Fprintf(&crds, "---\n# Source: %s/%s\n%s\n", chart.Name, file, strings.TrimSpace(string(other[file])))
			}
		}
	}
	for _, file := range sortedKeys(rendered) {
		if file == notesName {
			continue
		}
		for _, doc := range splitManifests(rendered[file]) {
			var head struct {
				Metadata struct {
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				return "", fmt.Errorf("YAML parse error on %s: %w", file, err)
			}
			target := &manifests
			if head.Metadata.Annotations["helm.sh/hook"] != "" {
				target = &hooks
			}
			fmt.Fprintf(target, "---\n# Source: %s\n%s\n", file, doc)
		}
	}
	return crds.String() + manifests.String() + hooks.String(), nil
}

func readValues(file string) (map[string]interface{}, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	values := map[string]interface{}{}
	if err := yaml.Unmarshal(data, &values); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if values == nil {
		values = map[string]interface{}{}
	}
	return values, nil
}

// coalesce merges override into values as Helm coalesces user values over a chart's defaults.
func coalesce(values, override map[string]interface{}) {
	for key, value := range override {
		if value == nil {
			delete(values, key)
			continue
		}
		if table, ok := value.(map[string]interface{}); ok {
			if existing, ok := values[key].(map[string]interface{}); ok {
				coalesce(existing, table)
				continue
			}
		}
		values[key] = value
	}
}

// load reads the chart as Helm's loader does: templates/ and the other files, .helmignore applied.
func load(chartDir string) (templates map[string]string, other files, err error) {
	rules := []ignoreRule{parseIgnoreRule("templates/.?*")}
	if data, err := os.ReadFile(filepath.Join(chartDir, ".helmignore")); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if rule := parseIgnoreRule(line); rule.pattern != "" {
				rules = append(rules, rule)
			}
		}
	}
	templates, other = map[string]string{}, files{}
	err = filepath.Walk(chartDir, func(file string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(chartDir, file)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		if ignored(rules, rel, info.IsDir()) {
			if info.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if info.IsDir() {
			return nil
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		switch {
		case strings.HasPrefix(rel, "templates/"):
			templates[rel] = string(data)
		case strings.HasPrefix(rel, "charts/"):
			return fmt.Errorf("%s: subcharts are not supported by this renderer", rel)
		case rel == "Chart.yaml" || rel == "values.yaml" || rel == "values.schema.json":
		default:
			other[rel] = data
		}
		return nil
	})
	return templates, other, err
}

// ignoreRule is one line of .helmignore, with the semantics of Helm's pkg/ignore.
type ignoreRule struct {
	pattern                 string
	negate, mustDir, rooted bool
}

func parseIgnoreRule(line string) ignoreRule {
	rule := strings.TrimSpace(line)
	if rule == "" || strings.HasPrefix(rule, "#") {
		return ignoreRule{}
	}
	r := ignoreRule{}
	if strings.HasPrefix(rule, "!") {
		r.negate, rule = true, rule[1:]
	}
	if strings.HasSuffix(rule, "/") {
		r.mustDir, rule = true, strings.TrimSuffix(rule, "/")
	}
	r.rooted = strings.Contains(rule, "/")
	r.pattern = strings.TrimPrefix(rule, "/")
	return r
}

func ignored(rules []ignoreRule, rel string, isDir bool) bool {
	for _, r := range rules {
		name := rel
		if !r.rooted {
			// A pattern without a slash matches the base name only.
			name = path.Base(rel)
		}
		matched, _ := path.Match(r.pattern, name)
		if r.negate {
			if (r.mustDir && !isDir) || !matched {
				return true
			}
			continue
		}
		if r.mustDir && !isDir {
			continue
		}
		if matched {
			return true
		}
	}
	return false
}

// render parses every template into one set, in Helm's order, and executes the non-partials.
func render(chartName string, templates map[string]string, top map[string]interface{}) (map[string]string, error) {
	root := template.New("gotpl").Option("missingkey=zero")
	root.Funcs(funcMap(root))
	names := make([]string, 0, len(templates))
	for rel := range templates {
		names = append(names, chartName+"/"+rel)
	}
	// Deeper paths first, then by name: Helm's parse order, which decides which `define` wins.
	sort.SliceStable(names, func(i, j int) bool {
		di, dj := strings.Count(names[i], "/"), strings.Count(names[j], "/")
		if di != dj {
			return di > dj
		}
		return names[i] > names[j]
	})
	for _, name := range names {
		if _, err := root.New(name).Parse(templates[strings.TrimPrefix(name, chartName+"/")]); err != nil {
			return nil, fmt.Errorf("parse error in (%s): %w", name, err)
		}
	}
	rendered := map[string]string{}
	for _, name := range names {
		if strings.HasPrefix(path.Base(name), "_") {
			continue
		}
		top["Template"] = map[string]interface{}{"Name": name, "BasePath": chartName + "/templates"}
		var buf strings.Builder
		if err := root.ExecuteTemplate(&buf, name, top); err != nil {
			return nil, cleanupExecError(name, err)
		}
		rendered[name] = strings.ReplaceAll(buf.String(), "<no value>", "")
	}
	return rendered, nil
}

func funcMap(root *template.Template) template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	included := map[string]int{}
	f["include"] = func(name string, data interface{}) (string, error) {
		if included[name] > 1000 {
			return "", fmt.Errorf("rendering template has a nested reference name: %s", name)
		}
		included[name]++
		defer func() { included[name]-- }()
		var buf strings.Builder
		err := root.ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	f["tpl"] = func(text string, data interface{}) (string, error) {
		clone, err := root.Clone()
		if err != nil {
			return "", err
		}
		name := "tpl"
		if top, ok := data.(map[string]interface{}); ok {
			if t, ok := top["Template"].(map[string]interface{}); ok {
				name, _ = t["Name"].(string)
			}
		}
		t, err := clone.New(name).Parse(text)
		if err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
		}
		var buf strings.Builder
		if err := t.Execute(&buf, data); err != nil {
			return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
		}
		return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
	}
	f["required"] = func(warn string, val interface{}) (interface{}, error) {
		if s, isString := val.(string); val == nil || (isString && s == "") {
			return val, errors.New(warnStart + warn + warnEnd)
		}
		return val, nil
	}
	f["fail"] = func(msg string) (string, error) { return "", errors.New(warnStart + msg + warnEnd) }
	f["lookup"] = func(apiVersion, kind, namespace, name string) (map[string]interface{}, error) {
		return map[string]interface{}{}, nil
	}
	f["toYaml"] = func(v interface{}) string {
		data, err := yaml.Marshal(v)
		if err != nil {
			return ""
		}
		return strings.TrimSuffix(string(data), "\n")
	}
	f["fromYaml"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := yaml.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	f["toJson"] = func(v interface{}) string {
		data, err := json.Marshal(v)
		if err != nil {
			return ""
		}
		return string(data)
	}
	f["fromJson"] = func(s string) map[string]interface{} {
		m := map[string]interface{}{}
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			m["Error"] = err.Error()
		}
		return m
	}
	return f
}

// cleanupExecError shortens errors of required and fail to Helm's "execution error at (...): msg".
func cleanupExecError(name string, err error) error {
	var execErr template.ExecError
	if !errors.As(err, &execErr) {
		return err
	}
	tokens := strings.SplitN(err.Error(), ": ", 3)
	if len(tokens) != 3 {
		return fmt.Errorf("execution error in (%s): %w", name, err)
	}
	if parts := warnRegex.FindStringSubmatch(tokens[2]); len(parts) >= 2 {
		return fmt.Errorf("execution error at (%s): %s", tokens[1], parts[1])
	}
	return err
}

var manifestSeparator = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

// splitManifests cuts a rendered file into its non-empty documents, as Helm's releaseutil does.
func splitManifests(text string) []string {
	var docs []string
	for _, doc := range manifestSeparator.Split(strings.TrimSpace(text), -1) {
		if doc = strings.TrimSpace(doc); doc != "" {
			docs = append(docs, doc)
		}
	}
	return docs
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
