package card

// Layer is one of the four layers the unit places every step on.
type Layer string

const (
	Device    Layer = "device"    // compute, memory and transfer limits
	Training  Layer = "training"  // numerics, data and parallel updates
	Inference Layer = "inference" // request state, scheduling and capacity
	Platform  Layer = "platform"  // resources, versions, delivery and faults
)

// Task is the kind of work a path map follows.
type Task string

const (
	TrainingTask  Task = "training"
	InferenceTask Task = "inference"
)

// Step is one box on a path map, in path order. Data, Device and Output
// say what flows in, what executes it and what comes out; Failure names
// how the step can fail. Empty means "not marked on this step".
type Step struct {
	Name    string `json:"name"`
	Layer   Layer  `json:"layer"`
	Data    string `json:"data,omitempty"`
	Device  string `json:"device,omitempty"`
	Output  string `json:"output,omitempty"`
	Failure string `json:"failure,omitempty"`
}

// PathMap is a learner's system path: one task followed step by step, with
// the point where measurements are taken. The unit asks for at least four
// steps with data, device, output and failure points marked, and a sampling
// point that is a step of the path (not just "platform monitoring").
type PathMap struct {
	Task  Task   `json:"task"`
	Steps []Step `json:"steps"`
	// SamplingPoint is the Name of the step where the measurement is taken.
	SamplingPoint string `json:"sampling_point"`
	// SamplingNote says how it is sampled there (clock, what is recorded).
	SamplingNote string `json:"sampling_note,omitempty"`
}
