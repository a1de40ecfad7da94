package unit01

import (
	"github.com/llmperf-course/course/coursekit/lab"
	"github.com/llmperf-course/course/coursekit/nb"
)

// The checks of notebook 08 (goodput and quality). They read the runs
// "right" (no wrong answers) and "wrong" (a share of them wrong) that the
// notebook saved; like the cell they replace, each shows only its own
// check, which keeps the computed value hidden while the guess is unset.

// CheckGoodputShare checks 08's prediction of the wrong-answer run's
// goodput as a share of the right run's (within 10 %), at the TTFT
// threshold sloMS.
func CheckGoodputShare(guess float64, experiment lab.Lab, sloMS float64) bool {
	right, wrong := nb.Must(experiment.Load("right")), nb.Must(experiment.Load("wrong"))
	share, _ := lab.GoodputShare(right, wrong, sloMS)
	return goodputShare(guess, share)
}

// goodputShare is CheckGoodputShare's verdict on the measured share. The
// anticipated mistakes are keyed to what they compute from the run, each
// with a range, since a learner writes them rounded: the drop 1 − share
// (0.2 for a measured 0.194) and the inverted ratio 1 ÷ share (1.25 for
// 1.24); then a percentage written as a whole number.
func goodputShare(guess, share float64) bool {
	return nb.CompareWithin("错答率 0.2 时的 goodput ÷ 错答率 0 时的 goodput", guess, share, 0.1,
		nb.IfNear(1-share, 0.15, "这是 goodput 下降的比例；问的是剩下的是原来的几分之几"),
		nb.IfNear(1/share, 0.15, "除反了：错答率 0.2 那次的 goodput 在分子上"),
		nb.IfAbove(1, "写 0 到 1 之间的数：八成写 0.8，不写 80"))
}

// CheckTTFTMoves checks 08's prediction that the two runs' success TTFT
// P50 differ by half or more.
func CheckTTFTMoves(guess nb.Guess, experiment lab.Lab, sloMS float64) bool {
	right, wrong := nb.Must(experiment.Load("right")), nb.Must(experiment.Load("wrong"))
	return ttftMoves(guess, lab.ChangedBy(right.Summary(sloMS).TTFT.P50, wrong.Summary(sloMS).TTFT.P50, 0.5))
}

func ttftMoves(guess nb.Guess, moves bool) bool {
	return nb.Compare("成功 TTFT P50 相差一半以上", guess, moves,
		nb.If(nb.Yes, "答错的回答和答对的差不多长，服务为它花的计算也差不多：TTFT 只差机器抖动"))
}

// busyMoves is whether two runs' mean busy readings are more than 10
// points apart.
func busyMoves(experiment lab.Lab) bool {
	right, wrong := nb.Must(experiment.Load("right")), nb.Must(experiment.Load("wrong"))
	apart, _ := lab.BusyApart(right, wrong)
	return apart > 0.10
}

// CheckBusyMoves checks 08's prediction that the two runs' mean device
// busy ratios differ by more than 10 points.
func CheckBusyMoves(guess nb.Guess, experiment lab.Lab) bool {
	return busyMovesCheck(guess, busyMoves(experiment))
}

func busyMovesCheck(guess nb.Guess, moves bool) bool {
	return nb.Compare("设备忙碌率相差超过 10 个百分点", guess, moves,
		nb.If(nb.Yes, "两次运行的负载一样、回答长度差不多，设备的活一样多：忙碌率几乎不动"))
}

// CheckPanelTells checks 08's prediction that a dashboard (busy ratio and
// TTFT) tells the two runs apart: it does when either moved (the TTFT P50
// by half, the busy ratio by 10 points).
func CheckPanelTells(guess nb.Guess, experiment lab.Lab, sloMS float64) bool {
	right, wrong := nb.Must(experiment.Load("right")), nb.Must(experiment.Load("wrong"))
	moved := lab.ChangedBy(right.Summary(sloMS).TTFT.P50, wrong.Summary(sloMS).TTFT.P50, 0.5) || busyMoves(experiment)
	return panelTells(guess, moved)
}

func panelTells(guess nb.Guess, tells bool) bool {
	return nb.Compare("只看忙碌率和 TTFT 能分辨两次运行", guess, tells,
		nb.If(nb.Yes, "忙碌率和 TTFT 只说明服务有多忙、有多快；两次运行差在回答对不对，只有质量评分看得出"))
}

// CheckQualityDrops checks 08's exercise 1: how many attempts of the
// wrong-answer run missed joint qualification on quality alone.
func CheckQualityDrops(answer int, experiment lab.Lab, sloMS float64) bool {
	return qualityDrops(answer, nb.Must(experiment.Load("wrong")).QualityFails(sloMS))
}

func qualityDrops(answer int, fails int64) bool {
	off := "差 1 次：从第二次运行的“质量通过率”读，分母（已评分的完整成功）减分子（质量通过）；两次运行的合格数之差可能还混着超时和失败"
	return nb.Compare("练习 1：质量不通过而未合格的尝试数", answer, fails, nb.If(fails-1, off), nb.If(fails+1, off))
}
