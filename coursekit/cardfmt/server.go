package cardfmt

import (
	"strings"

	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/metrics"
)

// ServerLines are the lines of the client/server split (metrics.ServerSplit) when the
// trace carries the server's own timings: the server's prefill beside the
// client's TTFT, and the unusable timings named, never guessed at.
func ServerLines(s *metrics.Summary) []string { return ServerLinesIn(lang.ZH, s) }

var (
	srvTimings    = lang.Msg{"服务器自报的计时（meta.server_timings，服务器自己的时钟）：完整成功中 %s 次可用，%d 次没有，%d 次有问题已忽略", "Server-reported timings (meta.server_timings, on the server clock): usable in %s, absent in %d, %d bad and ignored"}
	srvPrompt     = lang.Msg{"服务器 prompt_ms（预填充）", "Server prompt_ms (prefill)"}
	srvOver       = lang.Msg{"客户端 TTFT − 服务器 prompt_ms（排队、HTTP 路径、网络）", "Client TTFT − server prompt_ms (queueing, HTTP path, network)"}
	srvBelow      = lang.Msg{"注意：%s 次尝试的客户端 TTFT 比服务器的 prompt_ms 还短，同一个请求本不该如此（计时或数据有问题），没有计入上面的差值", "Note: %s a client TTFT shorter than the server prompt_ms, which cannot happen for one request (a timing or data problem); left out of the difference above"}
	srvDecode     = lang.Msg{"服务器每 token 解码时间 predicted_ms / (predicted_n − 1)", "Server decode time per token predicted_ms / (predicted_n − 1)"}
	srvClientTPOT = lang.Msg{"客户端 TPOT = (t_N − t_1) / (N − 1)，每次尝试一个值，与下面服务器的每 token 解码时间对照", "Client TPOT = (t_N − t_1) / (N − 1), one value per attempt, to set beside the server's decode time per token below"}
	srvDecodeDef  = lang.Msg{"口径：llama.cpp 在预填充结束、采样出第一个 token 时开始计 predicted_ms，到最后一个 token 为止，所以它含 predicted_n − 1 个解码步，也就是客户端看到的 N − 1 个 token 间隔：每次尝试一个值，对照的是上面客户端的 TPOT（同一次尝试 token 间隔的平均），不是上面逐个事件间隔的分位数；除以 predicted_n 会偏低 1/n。%s 次尝试只有一个 token（或没有 predicted_n），没有解码步，不计入", "Definition: llama.cpp starts predicted_ms when it samples the first token, at the end of the prefill, and stops it at the last token, so it spans predicted_n − 1 decode steps, the client's N − 1 gaps between tokens: one value per attempt, to set beside the client's TPOT above (the mean of one attempt's token gaps), not beside the percentiles of single event gaps above; over predicted_n it would read 1/n low. %s had one token (or no predicted_n): no decode step, left out"}
	tnFinish      = lang.Msg{"t_N：%s 次尝试取带 finish_reason 的块到达的时刻（finish_ms）：它们的 usage 比文本事件多计了 token（结束符、停止串，不带文本，随结束块到达）；其余 %d 次取最后一个文本事件", "t_N: the arrival of the chunk carrying finish_reason (finish_ms) in %s, whose usage counts tokens the text events did not carry (an end-of-sequence token, a stop string: sent without text, by the finish); the last text event in the other %d"}
	tnLast        = lang.Msg{"t_N：最后一个文本事件（轨迹没有 finish_ms，或事件带齐了 usage 计的 token）", "t_N: the last text event (no finish_ms in the trace, or the events carry every token usage counts)"}
	srvCache      = lang.Msg{"前缀缓存：%s 次尝试复用了缓存（cache_n > 0），共复用 %s 个 token；服务器实际计算的 prompt token 共 %s 个（各请求共同的开头，如聊天模板、系统提示，也算复用，所以全新的 prompt 也会命中）", "Prefix cache: %s reused the cache (cache_n > 0), %s reused in all; the server computed %s (a start every request shares, such as the chat template or a system prompt, counts as reused, so fresh prompts hit too)"}
	srvBad        = lang.Msg{"有问题的计时（前几条）：", "Bad timings (first few): "}
	srvBadSep     = lang.Msg{"；", "; "}
	srvUsageCache = lang.Msg{"前缀缓存（服务器在 usage 里报告的 cached_tokens）：报告了的 %s 次完整成功中，%d 次复用了缓存，共复用 %s 个 prompt token", "Prefix cache (cached_tokens the server reports in usage): of the %s that report it, %d reused the cache, %s reused in all"}
	srvTwoClock   = lang.Msg{"两个时钟的时长可以并排比较，时间戳不能相减", "Durations on the two clocks can be set side by side; their timestamps cannot be subtracted"}
)

// ServerLinesIn is ServerLines in l.
func ServerLinesIn(l lang.Lang, s *metrics.Summary) []string {
	sp := s.Server
	if sp == nil {
		if pc := s.PromptCache; pc != nil {
			return []string{srvUsageCache.F(l, lang.N(l, pc.Reported, "complete success", "complete successes"), pc.Hits, lang.N(l, pc.CachedTokens, "prompt token", "prompt tokens"))}
		}
		return nil
	}
	out := []string{
		srvTimings.F(l, lang.N(l, sp.WithTimings, "complete success", "complete successes"), sp.WithoutTimings, sp.Bad),
		distLine(l, srvPrompt.In(l), sp.PromptMS),
		distLine(l, srvOver.In(l), sp.ClientOverPromptMS),
	}
	if sp.TTFTBelowPrompt > 0 {
		out = append(out, srvBelow.F(l, lang.N(l, sp.TTFTBelowPrompt, "attempt has", "attempts have")))
	}
	if sp.DecodePerTokenMS.N > 0 {
		// Beside the client figure it is defined against: each attempt's
		// mean token gap, not the event gaps one by one.
		out = append(out, distLine(l, srvClientTPOT.In(l), s.TPOT))
		if c := CILineIn(l, s.TPOT); c != "" { // indented: it belongs to the line above
			out = append(out, "  "+c)
		}
		out = append(out, distLine(l, srvDecode.In(l), sp.DecodePerTokenMS), srvDecodeDef.F(l, lang.N(l, sp.NoDecodeStep, "attempt", "attempts")), tpotEnd(l, s))
	}
	out = append(out, srvCache.F(l, lang.N(l, sp.CacheHits, "attempt", "attempts"), lang.N(l, sp.CachedTokens, "token", "tokens"), lang.N(l, sp.PromptTokens, "prompt token", "prompt tokens")))
	if len(sp.BadExamples) > 0 {
		out = append(out, srvBad.In(l)+strings.Join(sp.BadExamples, srvBadSep.In(l)))
	}
	out = append(out, srvTwoClock.In(l))
	return out
}

// tpotInServer says that ServerLinesIn prints the client's TPOT (beside
// the server's decode time), so the card's own TPOT line is not repeated.
func tpotInServer(s *metrics.Summary) bool {
	return s.Server != nil && s.Server.DecodePerTokenMS.N > 0
}

// tpotEnd says which t_N the card's TPOT used (trace.Attempt.LastTokenMS).
func tpotEnd(l lang.Lang, s *metrics.Summary) string {
	if k := s.Event.TPOTAtFinish; k > 0 {
		return tnFinish.F(l, lang.N(l, k, "attempt", "attempts"), s.Event.TPOTAtLastEvent)
	}
	return tnLast.In(l)
}
