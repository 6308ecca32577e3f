# The word list every makemore program learns from: 322 common first names standing in for
# the lecture's names.txt (32,033 names; a program here has to run in seconds). Defines NAMES,
# one string; the lectures split it into words.

NAMES = """
emma olivia ava isabella sophia charlotte mia amelia harper evelyn abigail emily elizabeth
mila ella avery sofia camila aria scarlett victoria madison luna grace chloe penelope layla
riley zoey nora lily eleanor hannah lillian addison aubrey ellie stella natalie zoe leah hazel
violet aurora savannah audrey brooklyn bella claire skylar lucy paisley everly anna caroline
nova genesis emilia kennedy samantha maya willow kinsley naomi aaliyah elena sarah ariana
allison gabriella alice madelyn cora ruby eva serenity autumn adeline hailey gianna valentina
isla eliana quinn nevaeh ivy sadie piper lydia alexa josephine emery julia delilah arianna
vivian kaylee sophie brielle madeline noah liam william james oliver benjamin elijah lucas
mason logan alexander ethan jacob michael daniel henry jackson sebastian aiden matthew samuel
david joseph carter owen wyatt john jack luke jayden dylan grayson levi isaac gabriel julian
mateo anthony jaxon lincoln joshua christopher andrew theodore caleb ryan asher nathan thomas
leo isaiah charles josiah hudson christian hunter connor eli ezra aaron landon adrian jonathan
nolan jeremiah easton elias colton cameron carson robert angel maverick nicholas dominic
greyson adam ian austin santiago jordan cooper brayden roman evan ezekiel xavier jose jace
jameson leonardo bryson axel everett parker kayden miles sawyer jason declan weston micah
wesley luca vincent damian zachary silas gavin chase kai emmett harrison nathaniel kingston
cole tyler bennett bentley ryker tristan brandon kevin luis george ashton rowan braxton ryder
gael ivan diego maxwell max carlos juan maddox justin waylon calvin giovanni jonah abel jayce
amir king beau camden alex jasper malachi brody jude blake emmanuel eric brooks elliot antonio
abraham timothy finn rhett edward august xander alan dean lorenzo bryce karter victor milo
miguel hayden graham grant zion tucker jesse zayden joel richard patrick emiliano nicolas
dawson myles matteo river steven thiago zane matias judah jeremy preston oscar kaleb marcus
mark peter maximus barrett jax andres holden charlie knox kaden paxton kyrie kyle griffin
kenneth beckett enzo adriel arthur felix bryan lukas paul brian colt caden leon archer omar
"""
