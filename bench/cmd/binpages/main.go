// Command binpages prints how much of a running process's executable is
// resident, by ELF section: which parts of the binary (its code, its line
// tables, its read-only data) a load makes the process touch. It reads
// /proc/PID/maps and /proc/PID/pagemap (root, or the process's owner with
// CAP_SYS_ADMIN, to see the page frames' present bits).
//
//	go run ./cmd/binpages PID
package main

import (
	"bufio"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: binpages PID")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "binpages:", err)
		os.Exit(1)
	}
}

func run(pid string) error {
	exe, err := os.Readlink("/proc/" + pid + "/exe")
	if err != nil {
		return err
	}
	f, err := elf.Open(exe)
	if err != nil {
		return err
	}
	defer f.Close()
	maps, err := os.Open("/proc/" + pid + "/maps")
	if err != nil {
		return err
	}
	defer maps.Close()
	pagemap, err := os.Open("/proc/" + pid + "/pagemap")
	if err != nil {
		return err
	}
	defer pagemap.Close()

	const page = 4096
	resident := map[string]int{}
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[5] != exe {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil {
			return fmt.Errorf("maps line %q", sc.Text())
		}
		entries := make([]byte, (end-start)/page*8)
		if _, err := pagemap.ReadAt(entries, int64(start/page*8)); err != nil {
			return fmt.Errorf("pagemap: %w", err)
		}
		for i := range (end - start) / page {
			if binary.LittleEndian.Uint64(entries[i*8:])>>63 == 0 {
				continue // not present
			}
			resident[sectionOf(f, start+i*page)]++
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	names := make([]string, 0, len(resident))
	total := 0
	for n, c := range resident {
		names = append(names, n)
		total += c
	}
	sort.Slice(names, func(i, j int) bool { return resident[names[i]] > resident[names[j]] })
	fmt.Printf("%s (pid %s): resident pages of the executable, by section\n", exe, pid)
	for _, n := range names {
		fmt.Printf("  %-16s %7.2f MB\n", n, float64(resident[n]*page)/1e6)
	}
	fmt.Printf("  %-16s %7.2f MB\n", "total", float64(total*page)/1e6)
	return nil
}

// sectionOf names the allocated section that holds addr, or "other".
func sectionOf(f *elf.File, addr uint64) string {
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC != 0 && s.Addr <= addr && addr < s.Addr+s.Size {
			return s.Name
		}
	}
	return "other"
}
