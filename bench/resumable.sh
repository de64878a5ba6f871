# resumable.sh: sourced by the bench scripts whose runs continue over
# several sittings.

# train_resumable DIR FLAG...: deeplda train FLAG... -out DIR, unless
# DIR/report.json says the run is done; with -resume when DIR holds a
# resume file, so that the run continues after its last whole epoch. The
# command is $DEEPLDA, by default bin/deeplda.
train_resumable() {
	local dir=$1
	shift
	if grep -qs '"status": "done"' "$dir/report.json"; then
		echo "== $dir: done"
		return
	fi
	local resume=()
	if [ -f "$dir/resume.safetensors" ]; then resume=(-resume); fi
	echo "== $dir"
	"${DEEPLDA:-bin/deeplda}" train "$@" -out "$dir" "${resume[@]}"
}
