package grade

// Chinese names of the reason and finding codes, for the summary and the
// class report: the codes stay English and stable for tools, the lines an
// instructor reads are Chinese.

var ReasonZh = map[string]string{
	ReasonTooLarge:      "文件太大",
	ReasonTruncated:     "文件不完整（JSON 中途断了）",
	ReasonInvalidJSON:   "不是合法的 JSON",
	ReasonNotNotebook:   "不是 Jupyter 笔记本",
	ReasonNBFormat:      "笔记本格式不受支持",
	ReasonNoCard:        "没有口径卡",
	ReasonSelfCheck:     "自检没有运行",
	ReasonTwoCards:      "不止一张口径卡",
	ReasonWrongCard:     "口径卡类型不对",
	ReasonNonFinite:     "口径卡里有 NaN 或无穷大",
	ReasonUnknown:       "名单里没有这位学习者",
	ReasonNotOwn:        "交的是别人的笔记本（发放记录不是自己的）",
	ReasonUnreadable:    "文件读不出来",
	ReasonVariantFailed: "无法重新生成 trace",
	ReasonInternal:      "评分程序出错",
	ReasonBadZip:        "压缩包损坏",
	ReasonNoNotebook:    "没有上传笔记本",
	ReasonTwoNotebooks:  "上传了不止一个笔记本",
	ReasonSetup:         "评分程序的配置有问题",
}

var FindingZh = map[string]string{
	FindNBFormat:          "旧的笔记本格式",
	FindDuplicateIDs:      "单元格 id 重复",
	FindNoRelease:         "没有发放记录",
	FindReleaseEdited:     "发放记录被改动",
	FindOtherLearner:      "别人的笔记本",
	FindLockedDeleted:     "锁定单元格被删除",
	FindLockedDuplicated:  "锁定单元格重复",
	FindLockedEdited:      "锁定单元格被改动",
	FindInconsistent:      "输出与口径卡单元格不一致",
	FindNotComparable:     "口径卡单元格不是常量写法",
	FindNoCardCell:        "没有口径卡单元格",
	FindReportMismatch:    "自检结果被改动",
	FindOtherTrace:        "自检读的不是自己的 trace",
	FindCardOutputOutside: "口径卡出现在自检单元格以外",
	FindLMSOtherLearner:   "LMS 提交者与文件名不符",
	FindNotOnRoster:       "名单可能过期",
	FindRecordCopied:      "同一份发放记录由两个账号提交",
	FindExecRestored:      "重新运行前恢复了锁定单元格",
	FindExecCardDiffers:   "重新运行得到的口径卡不同",
	FindExecEnvironment:   "评分环境没能运行",
	FindGradedFromRerun:   "按重新运行的结果评分",
	FindDuplicate:         "重复提交",
	FindSameAnswer:        "文字题答案与别人的相同",
}

// ZhName is the Chinese name of a code, or the code itself if it has none
// (a test keeps every code named).
func ZhName(names map[string]string, code string) string {
	if n, ok := names[code]; ok {
		return n
	}
	return code
}
