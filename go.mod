module github.com/llmperf-course/course

go 1.26

require (
	github.com/go-echarts/go-echarts/v2 v2.7.0
	github.com/go-gota/gota v0.12.0
	github.com/janpfeifer/gonb v0.11.4
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/go-logr/logr v1.4.2 // indirect
	github.com/gofrs/uuid v4.4.0+incompatible // indirect
	github.com/pkg/errors v0.9.1 // indirect
	golang.org/x/exp v0.0.0-20250106191152-7588d65b2ba8 // indirect
	golang.org/x/net v0.0.0-20210423184538-5f58ad60dda6 // indirect
	k8s.io/klog/v2 v2.130.1 // indirect
)
