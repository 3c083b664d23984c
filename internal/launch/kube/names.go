package kube

import (
	"fmt"
	"regexp"
	"strconv"
)

// Kubernetes object names (RFC 1123), as the API server checks them.
var (
	labelRE     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	subdomainRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

// dns1123Label lists why s is not an RFC 1123 label (a Job's name, which
// also becomes a label value), none when it is one.
func dns1123Label(s string) []string {
	var errs []string
	if len(s) > 63 {
		errs = append(errs, fmt.Sprintf("must be no more than 63 characters, has %d", len(s)))
	}
	if !labelRE.MatchString(s) {
		errs = append(errs, "must consist of lower case alphanumeric characters or '-', and start and end with an alphanumeric character")
	}
	return errs
}

// dns1123Subdomain lists why s is not an RFC 1123 subdomain (the name of a
// PersistentVolumeClaim or a Secret), none when it is one.
func dns1123Subdomain(s string) []string {
	var errs []string
	if len(s) > 253 {
		errs = append(errs, fmt.Sprintf("must be no more than 253 characters, has %d", len(s)))
	}
	if !subdomainRE.MatchString(s) {
		errs = append(errs, "must consist of lower case alphanumeric characters, '-' or '.', and start and end with an alphanumeric character")
	}
	return errs
}

// binaryQuantity writes n bytes (n > 0) as Kubernetes writes a binary-SI
// quantity: the largest power-of-1024 suffix that divides n exactly
// ("1536Mi"), plain bytes otherwise; under 1024 Kubernetes switches to
// decimal suffixes, where only 1000 ("1k") has one.
func binaryQuantity(n int64) string {
	if n < 1024 {
		if n == 1000 {
			return "1k"
		}
		return strconv.FormatInt(n, 10)
	}
	suffixes := []string{"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"}
	i := 0
	for i < len(suffixes)-1 && n%1024 == 0 {
		n /= 1024
		i++
	}
	return strconv.FormatInt(n, 10) + suffixes[i]
}
