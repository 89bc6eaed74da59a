# recipes/: ready RADL recipes and the roles they use, installed under
# $(pkgdatadir)/recipes so an installed imc finds its roles.
recipesdir = $(pkgdatadir)/recipes
dist_recipes_DATA = recipes/fashion-mnist-local.radl recipes/thesis-aws.radl \
	recipes/pytorch-ddp-local.radl recipes/mpi-local.radl
nobase_dist_pkgdata_DATA = \
	recipes/roles/imc.trainer/defaults/main.yml \
	recipes/roles/imc.trainer/meta/main.yml \
	recipes/roles/imc.trainer/tasks/main.yml \
	recipes/roles/imc.trainer/tasks/install.yml \
	recipes/roles/imc.trainer/tasks/launch.yml \
	recipes/roles/imc.trainer/templates/tf_config.json.j2

# end-to-end tests of the recipes (long: real VMs and training)
TESTS += tests/cli/t9001-fashion-mnist-e2e.sh tests/cli/t9002-thesis-aws-rehearsal.sh \
	tests/cli/t9003-two-ps-e2e.sh
EXTRA_DIST += tests/cli/t9001-fashion-mnist-e2e.sh tests/cli/t9002-thesis-aws-rehearsal.sh \
	tests/cli/t9003-two-ps-e2e.sh

# the framework launch recipes (PyTorch DDP, Open MPI) end to end
TESTS += tests/cli/t6030-pytorch-ddp.sh tests/cli/t6031-mpi.sh
EXTRA_DIST += tests/cli/t6030-pytorch-ddp.sh tests/cli/t6031-mpi.sh
