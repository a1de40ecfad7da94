package class_test

import "github.com/llmperf-course/course/coursekit/charts/internal/charttest"

const evil = charttest.Evil
