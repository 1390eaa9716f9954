package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// k8sJob is a Kubernetes Job manifest, as far as TestKubernetesJobs reads
// it.
type k8sJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		Template       struct {
			Spec struct {
				RestartPolicy  string         `yaml:"restartPolicy"`
				InitContainers []k8sContainer `yaml:"initContainers"`
				Containers     []k8sContainer `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type k8sContainer struct {
	Name       string   `yaml:"name"`
	Command    []string `yaml:"command"`
	Args       []string `yaml:"args"`
	WorkingDir string   `yaml:"workingDir"`
	Env        []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			FieldRef *struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// indexAnnotation is the pod annotation that holds an Indexed Job's
// completion index.
const indexAnnotation = "batch.kubernetes.io/job-completion-index"

// TestKubernetesJobs checks the shipped manifests, deploy/k8s: the Indexed
// Job of the shards and the Job that merges them. It runs their containers
// as a kubelet would, one process each with the container's environment,
// $(VAR) references expanded and the volume a directory holding a spec and
// a trace: the Indexed Job's pods, one per completion index, then the merge
// Job's init containers and containers. The report must equal, byte for
// byte, that of one run of augur infer without filtering.
func TestKubernetesJobs(t *testing.T) {
	infer := readJob(t, "../../deploy/k8s/augur-infer-job.yaml")
	merge := readJob(t, "../../deploy/k8s/augur-merge-job.yaml")
	for _, j := range []*k8sJob{infer, merge} {
		if j.APIVersion != "batch/v1" || j.Kind != "Job" {
			t.Errorf("%s: %s %s, want batch/v1 Job", j.Metadata.Name, j.APIVersion, j.Kind)
		}
		if p := j.Spec.Template.Spec.RestartPolicy; p != "Never" && p != "OnFailure" {
			t.Errorf("%s: restartPolicy %q: a Job's pods restart Never or OnFailure", j.Metadata.Name, p)
		}
	}
	s := infer.Spec
	if s.CompletionMode != "Indexed" || s.Completions == nil || *s.Completions < 1 {
		t.Fatalf("%s: want completionMode Indexed (it is %q) and completions, the number of shards, at least 1", infer.Metadata.Name, s.CompletionMode)
	}
	if p := s.Parallelism; p != nil && (*p < 1 || *p > *s.Completions) {
		t.Errorf("%s: parallelism %d, want 1 to completions (%d)", infer.Metadata.Name, *p, *s.Completions)
	}
	if cs := s.Template.Spec.Containers; len(cs) != 1 || !slices.Contains(envNames(cs[0]), "JOB_COMPLETION_INDEX") {
		t.Errorf("%s: want one container, which states $JOB_COMPLETION_INDEX, the shard augur infer --shards evaluates", infer.Metadata.Name)
	}

	data := t.TempDir()
	augur(t, "collect", "../../testdata/small.jsonl", "-o", filepath.Join(data, "run.trace"))
	spec, err := os.ReadFile("../../testdata/small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "spec.yaml"), spec, 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range *s.Completions {
		runPod(t, infer, fmt.Sprintf("%s-%d", infer.Metadata.Name, i), map[string]string{indexAnnotation: strconv.Itoa(i)}, data)
	}
	runPod(t, merge, merge.Metadata.Name, nil, data)

	augur(t, "infer", filepath.Join(data, "spec.yaml"), filepath.Join(data, "run.trace"), "-q", "--no-filter", "--format", "html", "-o", filepath.Join(data, "one.html"))
	want, err := os.ReadFile(filepath.Join(data, "one.html"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(data, "report.html"))
	if err != nil {
		t.Fatalf("the merge Job wrote no report.html: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the merge Job's report.html differs from one run's")
	}
}

func readJob(t *testing.T, path string) *k8sJob {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var j k8sJob
	if err := yaml.Unmarshal(data, &j); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return &j
}

func envNames(c k8sContainer) []string {
	var names []string
	for _, e := range c.Env {
		names = append(names, e.Name)
	}
	return names
}

// runPod runs the init containers, then the containers, of pod, a pod of
// job with these annotations, each to completion, with the pod's only
// volume mounted from dir. It fails t if one fails.
func runPod(t *testing.T, job *k8sJob, pod string, annotations map[string]string, dir string) {
	t.Helper()
	spec := job.Spec.Template.Spec
	for _, c := range append(spec.InitContainers, spec.Containers...) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd, err := containerCmd(ctx, c, annotations, dir)
		if err != nil {
			cancel()
			t.Fatalf("pod %s, container %s: %v", pod, c.Name, err)
		}
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("pod %s, container %s: %q: %v\n%s", pod, c.Name, cmd.Args, err, out)
		}
	}
}

// containerCmd returns the process of container c as a kubelet would start
// it: its environment, its command and arguments with $(VAR) expanded, in
// its working directory, which must lie on its volume, mounted from dir.
// Of the pod's fields, only its annotations are resolved.
func containerCmd(ctx context.Context, c k8sContainer, annotations map[string]string, dir string) (*exec.Cmd, error) {
	env := map[string]string{}
	cmdEnv := []string{"PATH=" + os.Getenv("PATH")}
	for _, e := range c.Env {
		v := e.Value
		if from := e.ValueFrom; from != nil {
			var key string
			ok := from.FieldRef != nil
			if ok {
				key, ok = annotationKey(from.FieldRef.FieldPath)
			}
			if !ok {
				return nil, fmt.Errorf("env %s: only fields metadata.annotations['KEY'] are resolved here", e.Name)
			}
			if v, ok = annotations[key]; !ok {
				return nil, fmt.Errorf("env %s: the pod has no annotation %s", e.Name, key)
			}
		}
		env[e.Name] = v
		cmdEnv = append(cmdEnv, e.Name+"="+v)
	}
	argv := append(slices.Clone(c.Command), c.Args...)
	for i, a := range argv {
		var err error
		if argv[i], err = expand(a, env); err != nil {
			return nil, err
		}
	}
	if len(argv) == 0 || argv[0] != "augur" {
		return nil, fmt.Errorf("command %q, want augur", argv)
	}
	if len(c.VolumeMounts) != 1 {
		return nil, fmt.Errorf("%d volume mounts, want 1", len(c.VolumeMounts))
	}
	mount := c.VolumeMounts[0].MountPath
	rel, err := filepath.Rel(mount, c.WorkingDir)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("workingDir %q is not on the volume mounted at %s", c.WorkingDir, mount)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = cmdEnv
	cmd.Dir = filepath.Join(dir, rel)
	return cmd, nil
}

// annotationKey returns KEY from the field path metadata.annotations['KEY'].
func annotationKey(fieldPath string) (string, bool) {
	rest, ok := strings.CutPrefix(fieldPath, "metadata.annotations['")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, "']")
}

// expand replaces the references $(NAME) in s by the values of the
// variables in env, and $$ by $, as Kubernetes does in a container's
// command and arguments. A reference to a variable not in env, which
// Kubernetes leaves as it is, is an error.
func expand(s string, env map[string]string) (string, error) {
	var b strings.Builder
	for len(s) > 0 {
		switch {
		case strings.HasPrefix(s, "$$"):
			b.WriteByte('$')
			s = s[2:]
		case strings.HasPrefix(s, "$("):
			name, rest, _ := strings.Cut(s[2:], ")")
			v, ok := env[name]
			if !ok {
				return "", fmt.Errorf("%q: $(%s) is not among the container's variables", s, name)
			}
			b.WriteString(v)
			s = rest
		default:
			b.WriteByte(s[0])
			s = s[1:]
		}
	}
	return b.String(), nil
}
