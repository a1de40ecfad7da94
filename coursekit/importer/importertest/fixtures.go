// Package importertest lists the importers' recorded fixtures, so that the
// tests that go over every fixture of every importer share one list: a new
// layout's fixture added here is checked by all of them.
package importertest

// Fixture is a tool's recorded output in coursekit/importer/testdata
// (File), imported with --from From, and the tool's own summary file
// beside it (Summary; "" for none).
type Fixture struct{ From, File, Summary string }

// Fixtures are every importer's fixtures, with and without its summary.
var Fixtures = []Fixture{
	{"vllm", "vllm_current.json", ""},
	{"vllm", "vllm_old.json", ""},
	{"aiperf", "aiperf_profile_export.jsonl", ""},
	{"aiperf", "aiperf_profile_export.jsonl", "aiperf_profile_export_aiperf.json"},
	{"aiperf", "aiperf013_faults_profile_export.jsonl", ""},
	{"genai-perf", "genai_perf_profile_export.json", ""},
	{"genai-perf", "genai_perf_profile_export.json", "genai_perf_profile_export_genai_perf.json"},
	{"guidellm", "guidellm_v03.json", ""},
	{"guidellm", "guidellm_v2.json", ""},
	{"guidellm", "guidellm081_faults_benchmarks.json", ""},
	{"llmperf", "llmperf_individual_responses.json", ""},
	{"llmperf", "llmperf_individual_responses.json", "llmperf_summary.json"},
	{"inference-perf", "inference_perf_per_request.json", ""},
	{"inference-perf", "inference_perf_per_request.json", "inference_perf_summary_lifecycle_metrics.json"},
}
