package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/llmcap/llmcap/profiles"
	"github.com/llmcap/llmcap/rundir"
)

// newProfileCmd is `llmcap profile`: Nsight Systems helpers (convert, top, check).
func newProfileCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "profile",
		Short: "Nsight Systems captures: convert nsys reports or stats CSV to pprof, list top kernels",
		Long: `profile works with NVIDIA Nsight Systems captures, whether made by llmcap (capture.enabled)
or by hand. GPU kernels are classified as gemm, attention, communication, norm_activation,
memory or other, and written as pprof profiles (sample types calls/count and
gpu_time/nanoseconds; stacks kernel → class → phase) for go tool pprof -top / -http.`,
	}
	cmd.AddCommand(newProfileConvertCmd(), newProfileTopCmd(), newProfileCheckCmd())
	return cmd
}

func newProfileConvertCmd() *cobra.Command {
	var phase, jsonOut, kind, nsysPath string
	cmd := &cobra.Command{
		Use:   "convert REPORT.csv|REPORT.nsys-rep|REPORT.qdstrm -o FILE.pb.gz",
		Short: "Convert an nsys stats CSV table or an nsys report to a pprof profile",
		Example: "  llmcap profile convert run_cuda_gpu_kern_sum.csv -o kernels.pb.gz && go tool pprof -top kernels.pb.gz\n" +
			"  llmcap profile convert capture.nsys-rep -o kernels.pb.gz   # runs nsys stats (tables next to FILE)",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, _ := cmd.Flags().GetString("out")
			if out == "" {
				return errors.New("profile convert: -o FILE is required")
			}
			in := args[0]
			if strings.HasSuffix(strings.ToLower(in), ".csv") {
				return convertCSV(cmd.OutOrStdout(), in, out, kind, phase, jsonOut)
			}
			return convertReport(cmd.Context(), cmd.OutOrStdout(), in, out, phase, nsysPath)
		},
	}
	f := cmd.Flags()
	f.StringVar(&phase, "phase", "capture", "root frame of every stack (e.g. the step: \"chat c=32\")")
	f.StringVar(&jsonOut, "json", "", "also write the classified kernels as JSON (kernels.json format)")
	f.StringVar(&kind, "kind", "", "table kind: kernels, osrt or cuda_api (default: from the file name)")
	f.StringVar(&nsysPath, "nsys", "", "nsys binary for .nsys-rep input (default: $PATH, /usr/lib/nsight-systems…)")
	return cmd
}

// convertCSV converts one stats table.
func convertCSV(w io.Writer, in, out, kind, phase, jsonOut string) error {
	rows, err := profiles.ReadStatsCSV(in)
	if err != nil {
		return fmt.Errorf("profile convert: %w", err)
	}
	if len(rows) == 0 {
		return fmt.Errorf("profile convert: %s has no rows (nsys skipped the report for lack of data?)", in)
	}
	if kind == "" {
		kind = profiles.KindOf(in)
	}
	switch kind {
	case profiles.KindKernels, profiles.KindMemTime, "":
		kr := profiles.KernelRows(rows)
		p, err := profiles.KernelProfile(kr, phase, 0)
		if err != nil {
			return fmt.Errorf("profile convert: %w", err)
		}
		if err := profiles.WriteProfile(p, out); err != nil {
			return fmt.Errorf("profile convert: %w", err)
		}
		if jsonOut != "" {
			b, _ := json.MarshalIndent(kr, "", "  ")
			if err := os.WriteFile(jsonOut, append(b, '\n'), 0o644); err != nil {
				return fmt.Errorf("profile convert: %w", err)
			}
		}
		fmt.Fprintf(w, "wrote %s: %d kernels\n", out, len(kr))
		printKernels(w, kr, 10)
		return nil
	case profiles.KindOSRT, profiles.KindCUDAAPI, profiles.KindNVTX:
		timeType := map[string]string{profiles.KindOSRT: profiles.SampleOSTime}[kind]
		if timeType == "" {
			timeType = "cpu_time"
		}
		p, err := profiles.StatsProfile(rows, kind, timeType, kind, phase, 0)
		if err != nil {
			return fmt.Errorf("profile convert: %w", err)
		}
		if err := profiles.WriteProfile(p, out); err != nil {
			return fmt.Errorf("profile convert: %w", err)
		}
		fmt.Fprintf(w, "wrote %s: %d %s functions\n", out, len(p.Sample), kind)
		return nil
	}
	return fmt.Errorf("profile convert: --kind %q: want kernels, osrt or cuda_api", kind)
}

// convertReport runs nsys stats on a report into FILE-tables/ and copies the kernel
// profile (or, without GPU data, the OS runtime profile) to out.
func convertReport(ctx context.Context, w io.Writer, in, out, phase, nsysPath string) error {
	path, err := profiles.FindNsys(nsysPath)
	if err != nil {
		return fmt.Errorf("profile convert: %w", err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	dir := strings.TrimSuffix(strings.TrimSuffix(out, ".gz"), ".pb") + "-tables"
	abs, _ := filepath.Abs(in)
	sum, err := profiles.ConvertReport(ctx, profiles.NewNsys(path), abs, dir, profiles.Summary{Step: -1, Phase: phase})
	if err != nil {
		return fmt.Errorf("profile convert: %w", err)
	}
	src := profiles.FileKernelsPprof
	if sum.GPUTimeNs == 0 {
		src = sum.Profiles[0]
		fmt.Fprintf(w, "no GPU kernel data in %s; writing the %s profile\n", in, strings.TrimSuffix(src, ".pb.gz"))
	}
	b, err := os.ReadFile(filepath.Join(dir, src))
	if err != nil {
		return fmt.Errorf("profile convert: %w", err)
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return fmt.Errorf("profile convert: %w", err)
	}
	fmt.Fprintf(w, "wrote %s (tables and profiles in %s)\n", out, dir)
	printKernels(w, sum.Top, 10)
	return nil
}

func newProfileTopCmd() *cobra.Command {
	var n int
	var nsysPath string
	cmd := &cobra.Command{
		Use:   "top KERNELS.csv|CAPTURE_DIR|REPORT.nsys-rep",
		Short: "List the top GPU kernels and the GPU time share of each kernel class",
		Example: "  llmcap profile top runs/demo/profiles/step-003-short-c16\n  llmcap profile top stats_cuda_gpu_kern_sum.csv\n" +
			"  llmcap profile top capture.nsys-rep   # runs nsys stats into a temporary directory",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			kr, err := loadKernels(cmd.Context(), args[0], nsysPath)
			if err != nil {
				return fmt.Errorf("profile top %s: %w", args[0], err)
			}
			printKernels(cmd.OutOrStdout(), kr, n)
			return nil
		},
	}
	cmd.Flags().IntVarP(&n, "n", "n", 15, "kernels to list")
	cmd.Flags().StringVar(&nsysPath, "nsys", "", "nsys binary for .nsys-rep input (default: $PATH, /usr/lib/nsight-systems…)")
	return cmd
}

// loadKernels reads the classified kernels of path: a capture directory's
// kernels.json, an nsys stats CSV table, or an .nsys-rep/.qdstrm report (converted
// with nsys into a temporary directory). Anything that yields no kernel is an error
// saying what was expected.
func loadKernels(ctx context.Context, path, nsysPath string) ([]profiles.KernelRow, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var kr []profiles.KernelRow
	lower := strings.ToLower(path)
	switch {
	case st.IsDir():
		if kr, err = readKernelsJSON(filepath.Join(path, profiles.FileKernelsJSON)); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("not a capture directory: it has no %s", profiles.FileKernelsJSON)
		} else if err != nil {
			return nil, err
		}
		if len(kr) == 0 {
			return nil, fmt.Errorf("the capture has no GPU kernels (%s is empty: a CPU-only target?)", profiles.FileKernelsJSON)
		}
	case strings.HasSuffix(lower, ".csv"):
		rows, err := profiles.ReadStatsCSV(path)
		if err != nil {
			return nil, err
		}
		if kr = profiles.KernelRows(rows); len(kr) == 0 {
			return nil, errors.New("no kernel rows: not an nsys stats table (it needs Name and Total Time columns, " +
				"as in cuda_gpu_kern_sum.csv from nsys stats --format csv), or an empty one")
		}
	case strings.HasSuffix(lower, ".nsys-rep") || strings.HasSuffix(lower, ".qdstrm"):
		return reportKernels(ctx, path, nsysPath)
	default:
		return nil, errors.New("not a kernels table: want an nsys stats CSV (e.g. cuda_gpu_kern_sum.csv), " +
			"a capture directory (with kernels.json) or an .nsys-rep report")
	}
	return kr, nil
}

// readKernelsJSON reads a kernels.json file.
func readKernelsJSON(path string) ([]profiles.KernelRow, error) {
	return rundir.ReadKernels(path)
}

// reportKernels converts an nsys report into a temporary directory and returns its
// kernels (an error when the report has no GPU kernel data).
func reportKernels(ctx context.Context, rep, nsysPath string) ([]profiles.KernelRow, error) {
	nsys, err := profiles.FindNsys(nsysPath)
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	tmp, err := os.MkdirTemp("", "llmcap-top-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	abs, _ := filepath.Abs(rep)
	sum, err := profiles.ConvertReport(ctx, profiles.NewNsys(nsys), abs, tmp, profiles.Summary{Step: -1, Phase: "capture"})
	if err != nil {
		return nil, err
	}
	if sum.GPUTimeNs == 0 {
		return nil, errors.New("the report has no GPU kernel data (convert it with llmcap profile convert for its CPU-side profiles)")
	}
	if kr, err := readKernelsJSON(filepath.Join(tmp, profiles.FileKernelsJSON)); err == nil && len(kr) > 0 {
		return kr, nil
	}
	return sum.Top, nil
}

// printKernels prints class shares and the top n kernels.
func printKernels(w io.Writer, kr []profiles.KernelRow, n int) {
	if len(kr) == 0 {
		return
	}
	shares := profiles.ClassShares(kr)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CLASS\tGPU TIME %")
	for _, c := range profiles.TopClasses(shares) {
		if shares[c] > 0 {
			fmt.Fprintf(tw, "%s\t%.1f\n", c, 100*shares[c])
		}
	}
	fmt.Fprintln(tw, "\nKERNEL\tCLASS\tGPU TIME %\tTOTAL ms\tINSTANCES")
	for _, r := range kr[:min(n, len(kr))] {
		name := r.Name
		if len(name) > 90 {
			name = name[:87] + "..."
		}
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%.3f\t%d\n", name, r.Class, 100*r.Share, float64(r.TotalTimeNs)/1e6, r.Instances)
	}
	tw.Flush()
}

func newProfileCheckCmd() *cobra.Command {
	var nsysPath string
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Show the nsys llmcap would use, its version and report-name generation",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := profiles.FindNsys(nsysPath)
			if err != nil {
				return fmt.Errorf("profile check: %w", err)
			}
			n := profiles.NewNsys(path)
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			v, err := n.Version(ctx)
			if err != nil {
				return fmt.Errorf("profile check: %w", err)
			}
			names, err := n.ReportNames(ctx)
			if err != nil {
				return fmt.Errorf("profile check: %w", err)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "nsys:      %s\nversion:   %s\nreports:   %s generation (%s)\nimporter:  %s\n",
				path, v, names.Generation, strings.Join(names.All(), ", "), n.ImporterPath())
			return nil
		},
	}
	cmd.Flags().StringVar(&nsysPath, "nsys", "", "nsys binary (default: $PATH, /usr/lib/nsight-systems…)")
	return cmd
}
