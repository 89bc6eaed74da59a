# tests/fuzz/harnesses.sh: the fuzz harnesses, the largest input each one
# reads and where its seeds come from (sourced). scripts/fuzz (long runs)
# and tests/cli/fuzz-lib.sh (make check) both read it, so that they run the
# same harnesses on the same seeds.
#
# A harness's committed inputs are tests/fuzz/corpus/NAME (seeds written by
# hand: valid documents that reach the parser's features) and
# tests/fuzz/regress/NAME (every input a fuzzer ever crashed on, named
# after the bug; replayed by every `make check` pass so it stays fixed).

FUZZ_HARNESSES="fuzz-radl fuzz-auth fuzz-playbook fuzz-template fuzz-expr fuzz-wire fuzz-trainer-config fuzz-ec2-xml fuzz-inventory"

# fuzz_max_len NAME: the -max_len to fuzz NAME with: its harness ignores
# longer inputs (or nothing longer is worth the time).
fuzz_max_len() {
	case $1 in
	fuzz-template | fuzz-expr) echo 2048 ;;
	fuzz-ec2-xml) echo 8192 ;;
	*) echo 4096 ;;
	esac
}

# fuzz_seeds NAME SRCDIR DEST: fills directory DEST with NAME's seeds: its
# committed inputs and, for the RADL and EC2 readers, test data of the
# source tree (the reference's RADL conformance inputs, the recorded EC2
# replies).
fuzz_seeds() {
	local name=$1 src=$2 dest=$3 d
	mkdir -p "$dest"
	for d in corpus regress; do
		if [ -d "$src/tests/fuzz/$d/$name" ]; then
			mkdir -p "$dest/$d"
			cp "$src/tests/fuzz/$d/$name"/* "$dest/$d/" 2>/dev/null
		fi
	done
	case $name in
	fuzz-radl)
		mkdir -p "$dest/radl"
		cp "$src"/tests/radl/*.radl "$dest/radl/"
		mkdir -p "$dest/conformance"
		cp "$src"/tests/radl/conformance/*.radl "$dest/conformance/"
		;;
	fuzz-ec2-xml)
		mkdir -p "$dest/vectors"
		find "$src/tests/vectors/ec2" -name '*.xml' -size -64k -exec cp {} "$dest/vectors/" \;
		;;
	esac
	return 0
}
