package cardfmt

import (
	"fmt"
	"strings"

	"github.com/llmperf-course/course/coursekit/metrics"
)

// ServerLines are the lines of the client/server split (metrics.ServerSplit) when the
// trace carries the server's own timings: the server's prefill beside the
// client's TTFT, and the unusable timings named, never guessed at.
func ServerLines(s *metrics.Summary) []string {
	sp := s.Server
	if sp == nil {
		if pc := s.PromptCache; pc != nil {
			return []string{fmt.Sprintf("前缀缓存（服务器在 usage 里报告的 cached_tokens）：报告了的 %d 次完整成功中，%d 次复用了缓存，共复用 %d 个 prompt token",
				pc.Reported, pc.Hits, pc.CachedTokens)}
		}
		return nil
	}
	out := []string{
		fmt.Sprintf("服务器自报的计时（meta.server_timings，服务器自己的时钟）：完整成功中 %d 次可用，%d 次没有，%d 次有问题已忽略",
			sp.WithTimings, sp.WithoutTimings, sp.Bad),
		distLine("服务器 prompt_ms（预填充）", sp.PromptMS),
		distLine("客户端 TTFT − 服务器 prompt_ms（排队、HTTP 路径、网络）", sp.ClientOverPromptMS),
	}
	if sp.TTFTBelowPrompt > 0 {
		out = append(out, fmt.Sprintf("注意：%d 次尝试的客户端 TTFT 比服务器的 prompt_ms 还短，同一个请求本不该如此（计时或数据有问题），没有计入上面的差值", sp.TTFTBelowPrompt))
	}
	if sp.DecodePerTokenMS.N > 0 {
		out = append(out, distLine("服务器每 token 解码时间 predicted_ms / predicted_n", sp.DecodePerTokenMS))
	}
	out = append(out, fmt.Sprintf("前缀缓存：%d 次尝试复用了缓存（cache_n > 0），共复用 %d 个 token；服务器实际计算的 prompt token 共 %d 个",
		sp.CacheHits, sp.CachedTokens, sp.PromptTokens))
	if len(sp.BadExamples) > 0 {
		out = append(out, "有问题的计时（前几条）："+strings.Join(sp.BadExamples, "；"))
	}
	out = append(out, "两个时钟的时长可以并排比较，时间戳不能相减")
	return out
}
