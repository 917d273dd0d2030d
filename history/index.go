package history

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// The index, index.tsv, holds one line per write:
// the fields of a Summary separated by tabs, each escaped so that no tab,
// newline or backslash of a module's string can break a line. Lines are
// read without reflection: a history of 10 000 runs lists in a few
// milliseconds (BenchmarkList10000). A line written before the error
// message was kept has the first oldIndexFields fields only.
const (
	indexFields    = 15
	oldIndexFields = 14
)

// errIndexLine is a line of the index that does not parse.
var errIndexLine = errors.New("damaged index line")

// encodeLine is sum's index line, without its newline.
func encodeLine(sum Summary) []byte {
	pct := ""
	if sum.JobPercent != nil {
		pct = strconv.FormatFloat(*sum.JobPercent, 'g', -1, 64)
	}
	pin := "0"
	if sum.Pinned {
		pin = "1"
	}
	fields := []string{
		esc(sum.RunID), esc(sum.Module), esc(sum.Capability), esc(string(sum.Status)), esc(sum.Code), esc(sum.Source),
		strconv.FormatInt(sum.Started.UnixMilli(), 10), strconv.FormatInt(sum.DurationMS, 10), pin,
		esc(sum.JobID), esc(sum.JobState), pct, strconv.FormatInt(sum.Bytes, 10), esc(sum.Input), esc(sum.Error),
	}
	return []byte(strings.Join(fields, "\t"))
}

// decodeLine parses one index line.
func decodeLine(line string) (Summary, error) {
	var f [indexFields]string
	n := 0
	for n < indexFields-1 {
		i := strings.IndexByte(line, '\t')
		if i < 0 && n == oldIndexFields-1 {
			break // an older line: no error message
		}
		if i < 0 {
			return Summary{}, errIndexLine
		}
		f[n], line = line[:i], line[i+1:]
		n++
	}
	if strings.IndexByte(line, '\t') >= 0 {
		return Summary{}, errIndexLine
	}
	f[n] = line
	started, err1 := strconv.ParseInt(f[6], 10, 64)
	dur, err2 := strconv.ParseInt(f[7], 10, 64)
	size, err3 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || (f[8] != "0" && f[8] != "1") {
		return Summary{}, errIndexLine
	}
	s := Summary{RunID: unesc(f[0]), Module: unesc(f[1]), Capability: unesc(f[2]), Status: Status(unesc(f[3])),
		Code: unesc(f[4]), Source: unesc(f[5]), Started: time.UnixMilli(started), DurationMS: dur, Pinned: f[8] == "1",
		JobID: unesc(f[9]), JobState: unesc(f[10]), Bytes: size, Input: unesc(f[13]), Error: unesc(f[14])}
	if f[11] != "" {
		p, err := strconv.ParseFloat(f[11], 64)
		if err != nil {
			return Summary{}, errIndexLine
		}
		s.JobPercent = &p
	}
	if CheckID(s.RunID) != nil {
		return Summary{}, errIndexLine
	}
	return s, nil
}

// escaper and unescaper keep tabs, newlines and backslashes out of a
// field.
var (
	escaper   = strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`)
	unescaper = strings.NewReplacer(`\\`, `\`, `\t`, "\t", `\n`, "\n", `\r`, "\r")
)

func esc(s string) string {
	if !strings.ContainsAny(s, "\\\t\n\r") {
		return s
	}
	return escaper.Replace(s)
}

func unesc(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	return unescaper.Replace(s)
}
