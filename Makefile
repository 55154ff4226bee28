# Two entry points: `make book` builds the HTML book, `make test` runs the tests.
# Both create (or refresh) .venv from requirements.txt first.
# `make test` runs the tests in TEST_JOBS processes (pytest-xdist; an idle one takes tests queued for another);
# TEST_JOBS=0 runs them in this one.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.requirements-installed
DATASET ?= synthetic
SEED ?= 0
CHAPTERS ?=
JOBS ?= 2
TEST_JOBS ?= 2
PYTEST_ARGS ?=
CSV_THRESHOLD ?=
CSV_DUPLICATES ?=
CSV_COLUMNS ?=

.PHONY: book test benchmarks readme-figure clean env

env: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

book: $(STAMP)
	$(BIN)/python -m recbias.bookkit --dataset $(DATASET) --seed $(SEED) --jobs $(JOBS) $(if $(CHAPTERS),--chapters $(CHAPTERS)) \
		$(if $(CSV_THRESHOLD),--csv-threshold $(CSV_THRESHOLD)) $(if $(CSV_DUPLICATES),--csv-duplicates $(CSV_DUPLICATES)) \
		$(if $(CSV_COLUMNS),--csv-columns $(CSV_COLUMNS))

test: $(STAMP)
	$(BIN)/python -m pytest -n $(TEST_JOBS) --dist worksteal $(PYTEST_ARGS)

benchmarks: $(STAMP)
	for script in benchmarks/*.py; do $(BIN)/python $$script || exit 1; done

readme-figure: book/01_cranfield.ipynb
	$(BIN)/python -c "import base64, json, sys; cells = json.load(open(sys.argv[1]))['cells']; \
	png = next(o['data']['application/papermill.record/image/png'] for c in cells for o in c.get('outputs', []) \
	if o.get('metadata', {}).get('scrapbook', {}).get('name') == 'fig-cranfield-spread'); \
	open(sys.argv[2], 'wb').write(base64.b64decode(png))" $< docs/relevance-spread.png

clean:
	rm -rf _build book/*.ipynb
