// Reads quantity texts, one a line, and prints what k8s.io/apimachinery v0.32.2 makes of each
// (run.sh): OK <unscaled>e<exponent> <Format> <String()> <Value()> <MilliValue()>, ERR <kind>,
// or TIMEOUT when ParseQuantity has not answered in 2 s.
package main

import (
	"bufio"
	"fmt"
	"math/big"
	"os"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

func main() {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for sc.Scan() {
		line := sc.Text()
		line = strings.ReplaceAll(line, "\\n", "\n")
		type res struct {
			q   resource.Quantity
			err error
		}
		ch := make(chan res, 1)
		go func() { q, err := resource.ParseQuantity(line); ch <- res{q, err} }()
		var q resource.Quantity
		var err error
		select {
		case r := <-ch:
			q, err = r.q, r.err
		case <-time.After(2 * time.Second):
			fmt.Fprintf(w, "TIMEOUT\n")
			w.Flush()
			continue
		}
		if err != nil {
			kind := "?"
			switch err {
			case resource.ErrFormatWrong:
				kind = "FormatWrong"
			case resource.ErrSuffix:
				kind = "Suffix"
			case resource.ErrNumeric:
				kind = "Numeric"
			}
			fmt.Fprintf(w, "ERR %s\n", kind)
			w.Flush()
			continue
		}
		s := q.String()
		q2 := q.DeepCopy()
		d := q2.AsDec()
		ub := d.UnscaledBig()
		exp := -int64(d.Scale())
		small := ub.Sign() == 0 || int64(len(new(big.Int).Abs(ub).String()))+exp <= 15
		v, mv := "-", "-"
		if small {
			v = fmt.Sprint(q.Value())
			mv = fmt.Sprint(q.MilliValue())
		}
		fmt.Fprintf(w, "OK %se%d %s %s %s %s\n", ub.String(), exp, q.Format, s, v, mv)
		w.Flush()
	}
}
