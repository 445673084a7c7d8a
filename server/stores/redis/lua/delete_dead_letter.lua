-- uses: common, messages
-- ARGV[3] message id.
if not remove_dead_letter(ARGV[3]) then fail('dead_letter_not_found') end
return 1
