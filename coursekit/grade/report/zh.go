package report

import (
	"github.com/llmperf-course/course/coursekit/grade/batch"
	"github.com/llmperf-course/course/coursekit/grade/execute"
	"github.com/llmperf-course/course/coursekit/grade/grader"
	"github.com/llmperf-course/course/coursekit/grade/gradescope"
	"github.com/llmperf-course/course/coursekit/grade/integrity"
	"github.com/llmperf-course/course/coursekit/grade/notebook"
)

// Chinese names of the reason and finding codes, for the summary and the
// class report: the codes stay English and stable for tools, the lines an
// instructor reads are Chinese.

// ReasonZh names each reason an ungradable submission can have.
var ReasonZh = map[string]string{
	notebook.ReasonTooLarge:       "文件太大",
	notebook.ReasonTruncated:      "文件不完整（JSON 中途断了）",
	notebook.ReasonInvalidJSON:    "不是合法的 JSON",
	notebook.ReasonNotNotebook:    "不是 Jupyter 笔记本",
	notebook.ReasonNBFormat:       "笔记本格式不受支持",
	notebook.ReasonNoCard:         "没有口径卡",
	notebook.ReasonSelfCheck:      "自检没有运行",
	notebook.ReasonCompileError:   "编译错误",
	notebook.ReasonTwoCards:       "不止一张口径卡",
	notebook.ReasonWrongCard:      "口径卡类型不对",
	notebook.ReasonNonFinite:      "口径卡里有 NaN 或无穷大",
	notebook.ReasonUnknown:        "名单里没有这位学习者",
	grader.ReasonNotOwn:           "交的是别人的笔记本（发放记录不是自己的）",
	grader.ReasonRosterHeld:       "暂不评分：名单的 lms_id 与 LMS 名字对不上，等老师核对名单",
	notebook.ReasonUnreadable:     "文件读不出来",
	notebook.ReasonVariantFailed:  "无法重新生成 trace",
	notebook.ReasonInternal:       "评分程序出错",
	notebook.ReasonNotRegular:     "不是普通文件（符号链接、命名管道或设备），没有读",
	notebook.ReasonFoldedKey:      "JSON 键名只差大小写（影子字段）",
	grader.ReasonBadZip:           "压缩包损坏",
	gradescope.ReasonNoNotebook:   "没有上传笔记本",
	gradescope.ReasonTwoNotebooks: "上传了不止一个笔记本",
	gradescope.ReasonSetup:        "评分程序的配置有问题",
}

// FindingZh names each integrity finding.
var FindingZh = map[string]string{
	integrity.FindNBFormat:          "旧的笔记本格式",
	integrity.FindDuplicateIDs:      "单元格 id 重复",
	integrity.FindNoRelease:         "没有发放记录",
	integrity.FindReleaseEdited:     "发放记录被改动",
	integrity.FindOtherLearner:      "别人的笔记本",
	integrity.FindLockedDeleted:     "锁定单元格被删除",
	integrity.FindLockedDuplicated:  "锁定单元格重复",
	integrity.FindLockedEdited:      "锁定单元格被改动",
	integrity.FindInconsistent:      "输出与口径卡单元格不一致",
	integrity.FindNotComparable:     "口径卡单元格不是常量写法",
	integrity.FindNoCardCell:        "没有口径卡单元格",
	integrity.FindReportMismatch:    "自检结果被改动",
	integrity.FindOtherTrace:        "自检读的不是自己的 trace",
	integrity.FindCardOutputOutside: "口径卡出现在自检单元格以外",
	grader.FindLMSOtherLearner:      "LMS 提交者与文件名不符",
	grader.FindNotOnRoster:          "名单可能过期",
	grader.FindRecordCopied:         "同一份发放记录由两个账号提交",
	grader.FindRosterMismatch:       "名单的 lms_id 与 LMS 名字和发放记录不符（按发放记录评分）",
	grader.FindLMSNameAmbiguous:     "LMS 姓名与名单上不止一位学习者相同（没有按姓名认人）",
	grader.FindNameNotRecord:        "文件名是别人的，发放记录只交了这一份（按发放记录评分，不算抄袭）",
	execute.FindExecRestored:        "重新运行前恢复了锁定单元格",
	execute.FindExecCardDiffers:     "重新运行得到的口径卡不同",
	execute.FindExecEnvironment:     "评分环境没能运行",
	execute.FindGradedFromRerun:     "按重新运行的结果评分",
	batch.FindDuplicate:             "重复提交",
	batch.FindSameAnswer:            "文字题答案与别人的相同",
}

// ZhName is the Chinese name of a code, or the code itself if it has none
// (a test keeps every code named).
func ZhName(names map[string]string, code string) string {
	if n, ok := names[code]; ok {
		return n
	}
	return code
}
