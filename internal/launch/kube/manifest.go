package kube

// The part of the Kubernetes batch/v1 Job schema rumbench writes, with the
// API's JSON field names (sigs.k8s.io/yaml turns them into YAML). Only
// fields rumbench sets are here; the tests decode the manifest strictly
// into k8s.io/api's types, so a misspelt or misplaced field fails them.

type job struct {
	APIVersion string     `json:"apiVersion"`
	Kind       string     `json:"kind"`
	Metadata   objectMeta `json:"metadata"`
	Spec       jobSpec    `json:"spec"`
}

type objectMeta struct {
	Name   string            `json:"name,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
}

type jobSpec struct {
	CompletionMode       string      `json:"completionMode"`
	Completions          int         `json:"completions"`
	Parallelism          int         `json:"parallelism"`
	BackoffLimitPerIndex int         `json:"backoffLimitPerIndex"`
	PodReplacementPolicy string      `json:"podReplacementPolicy"`
	Template             podTemplate `json:"template"`
}

type podTemplate struct {
	Metadata objectMeta `json:"metadata"`
	Spec     podSpec    `json:"spec"`
}

type podSpec struct {
	RestartPolicy string      `json:"restartPolicy"`
	HostNetwork   bool        `json:"hostNetwork,omitempty"`
	DNSPolicy     string      `json:"dnsPolicy,omitempty"`
	Affinity      *affinity   `json:"affinity,omitempty"`
	Containers    []container `json:"containers"`
	Volumes       []volume    `json:"volumes,omitempty"`
}

type affinity struct {
	PodAntiAffinity *podAntiAffinity `json:"podAntiAffinity,omitempty"`
}

type podAntiAffinity struct {
	Preferred []weightedPodAffinityTerm `json:"preferredDuringSchedulingIgnoredDuringExecution,omitempty"`
}

type weightedPodAffinityTerm struct {
	Weight          int             `json:"weight"`
	PodAffinityTerm podAffinityTerm `json:"podAffinityTerm"`
}

type podAffinityTerm struct {
	LabelSelector *labelSelector `json:"labelSelector,omitempty"`
	TopologyKey   string         `json:"topologyKey"`
}

type labelSelector struct {
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
}

type container struct {
	Name         string        `json:"name"`
	Image        string        `json:"image"`
	Command      []string      `json:"command,omitempty"`
	Args         []string      `json:"args,omitempty"`
	Env          []envVar      `json:"env,omitempty"`
	Resources    *resources    `json:"resources,omitempty"`
	VolumeMounts []volumeMount `json:"volumeMounts,omitempty"`
}

type envVar struct {
	Name      string        `json:"name"`
	Value     string        `json:"value,omitempty"`
	ValueFrom *envVarSource `json:"valueFrom,omitempty"`
}

type envVarSource struct {
	FieldRef     *fieldRef     `json:"fieldRef,omitempty"`
	SecretKeyRef *secretKeyRef `json:"secretKeyRef,omitempty"`
}

type fieldRef struct {
	FieldPath string `json:"fieldPath"`
}

type secretKeyRef struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

// resources maps a resource name to its quantity ("1536Mi").
type resources struct {
	Limits   map[string]string `json:"limits,omitempty"`
	Requests map[string]string `json:"requests,omitempty"`
}

type volumeMount struct {
	Name      string `json:"name"`
	MountPath string `json:"mountPath"`
	SubPath   string `json:"subPath,omitempty"`
}

type volume struct {
	Name                  string     `json:"name"`
	PersistentVolumeClaim *pvcSource `json:"persistentVolumeClaim,omitempty"`
	EmptyDir              *emptyDir  `json:"emptyDir,omitempty"`
}

type pvcSource struct {
	ClaimName string `json:"claimName"`
}

type emptyDir struct{}
