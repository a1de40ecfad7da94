package importer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/llmperf-course/course/coursekit/dataset"
	"github.com/llmperf-course/course/coursekit/importer/internal/toolfile"
	"github.com/llmperf-course/course/coursekit/lang"
	"github.com/llmperf-course/course/coursekit/trace"
)

// judgeTexts rates the answers a tool saved, the way `coursekit bench
// --dataset` rates them during a run: response i is judged against prompt
// i of the dataset (the order the tool sent them in). A complete success
// whose prompt carries an expectation becomes quality pass or fail, with
// meta.judge {name, reason} and meta.prompt naming the dataset line; the
// others stay unrated. A file that kept no texts, or a dataset shorter
// than the file, is an error: nothing is judged by guesswork.
func judgeTexts(from string, src *toolfile.Source, res *toolfile.Result, set *dataset.Set) error {
	texts, err := savedTexts(from, src, res)
	if err != nil {
		return err
	}
	if len(texts) > len(set.Items) {
		return fmt.Errorf("--dataset %s has %s but %s holds %s: judging is by prompt order, so the dataset must be the one the tool sent (at least as long)",
			set.Name, lang.N(lang.EN, len(set.Items), "prompt", "prompts"), src.Name, lang.N(lang.EN, len(texts), "response", "responses"))
	}
	pass, fail, unrated := 0, 0, 0
	for i := range res.Attempts {
		a := &res.Attempts[i]
		it := set.Items[i]
		meta := map[string]any{}
		if len(a.Meta) > 0 {
			if err := json.Unmarshal(a.Meta, &meta); err != nil {
				return err
			}
		}
		meta["prompt"] = it.Ref
		if a.Outcome == trace.OK {
			switch {
			case it.Judge == nil:
				unrated++
			case texts[i] == nil:
				unrated++
				meta["judge"] = map[string]string{"name": it.Judge.Name(), "reason": "no text saved for this response"}
			default:
				v := it.Judge.Judge(*texts[i])
				a.Quality = trace.Fail
				if v.Pass {
					a.Quality = trace.Pass
					pass++
				} else {
					fail++
				}
				meta["judge"] = map[string]string{"name": it.Judge.Name(), "reason": v.Reason}
			}
		}
		if a.Meta, err = json.Marshal(meta); err != nil {
			return err
		}
	}
	res.Conds.Quality = fmt.Sprintf("judged by prompt order against dataset %s (%d of %d prompts with an expectation; judges %s): response i against prompt i; "+
		"a complete success is pass or fail with meta.judge {name, reason}; failures and prompts without an expectation are null (unrated)",
		set.Name, set.Rated(), len(set.Items), strings.Join(set.JudgeNames(), ", "))
	res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
		"按 prompt 顺序用 %s 评判回答：%d 个 pass，%d 个 fail，%s 个完整成功未评分",
		"answers judged against %s by prompt order: %d pass, %d fail, %s unrated"}, set.Name, pass, fail, toolfile.Count(unrated, "complete success", "complete successes")))
	if len(set.Items) > len(texts) {
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"%s 有 %s 条 prompt，文件里只有 %s 个回答：只用了前 %s 条 prompt",
			"%s has %s, the file %s: the first %s used"}, set.Name, toolfile.Count(len(set.Items), "prompt", "prompts"), toolfile.Count(len(texts), "response", "responses"), toolfile.Count(len(texts), "prompt was", "prompts were")))
	}
	if from == "vllm" {
		res.Report.Notes = append(res.Report.Notes, toolfile.NewNote(lang.Msg{
			"只有 vLLM 按数据集原来的顺序（不打乱）发送时，prompt 顺序才对得上：vllm bench serve --dataset-name custom --dataset-path FILE --disable-shuffle",
			"prompt order holds only if vLLM sent the dataset unshuffled: vllm bench serve --dataset-name custom --dataset-path FILE --disable-shuffle"}))
	}
	return nil
}

// savedTexts returns each row's generated text (nil where the tool wrote
// null), in row order.
func savedTexts(from string, src *toolfile.Source, res *toolfile.Result) ([]*string, error) {
	if from != "vllm" {
		return nil, fmt.Errorf("--dataset: %s result files keep no generated texts, so their answers cannot be judged (vllm bench serve --save-detailed keeps them as generated_texts)", from)
	}
	vals, lines, err := src.Values()
	if err != nil {
		return nil, err
	}
	k := res.Report.Run - 1
	o, err := src.Object(vals[k], lines[k], "")
	if err != nil {
		return nil, err
	}
	if len(vals) == 1 {
		o.Line = 0 // as vllm.Import: the JSON path locates errors in one object
	}
	if !o.Has("generated_texts") {
		return nil, o.Err("generated_texts", "missing: vLLM keeps the generated texts only with --save-result --save-detailed; without them there is nothing to judge")
	}
	raw, err := o.Array("generated_texts")
	if err != nil {
		return nil, err
	}
	if len(raw) != len(res.Attempts) {
		return nil, o.Err("generated_texts", fmt.Sprintf("has %s but ttfts has %d: the per-request arrays must be parallel", lang.N(lang.EN, len(raw), "entry", "entries"), len(res.Attempts)))
	}
	texts := make([]*string, len(raw))
	for i, v := range raw {
		if toolfile.IsNull(v) {
			continue
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, o.Err(fmt.Sprintf("generated_texts[%d]", i), "want a string, got "+toolfile.Kind(v))
		}
		texts[i] = &s
	}
	return texts, nil
}
